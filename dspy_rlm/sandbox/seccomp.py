"""The seccomp deny-list loaded on the sandbox worker (Linux; libseccomp through ``pyseccomp``)."""

from __future__ import annotations

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

#: Syscalls the model's code never needs and the namespaces do not take away: kernel attack surface (bpf,
#: perf, userfaultfd, keyrings, io_uring), inspecting or entering other processes and namespaces (ptrace,
#: process_vm_*, setns, unshare, namespace-creating clone), and host-wide state (mount, modules, clock,
#: swap, reboot), and leaving the worker's process group. Each fails with EPERM; everything else is allowed.
DENIED_SYSCALLS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "setns",
    "unshare",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_by_handle_at",
    "name_to_handle_at",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "syslog",
    "quotactl",
    "vhangup",
    "iopl",
    "ioperm",
    "lookup_dcookie",
    "personality",
    # The worker's process group is stopped between blocks (SIGSTOP to the group): nothing may leave it.
    "setsid",
    "setpgid",
)
#: clone() flags that make a namespace (user, mount, pid, net, ipc, uts, cgroup): refused, so model code
#: cannot nest namespaces of its own.
_CLONE_NAMESPACE_FLAGS = (CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, 0x08000000, 0x04000000, 0x02000000)


def preload_seccomp() -> None:
    """Import the seccomp binding (it loads libseccomp) in a process that will fork workers, so each worker
    shares its pages instead of loading its own copy."""
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError):
        pass


AF_UNIX = 1


def install_seccomp(no_network: bool = False) -> str:
    """Load a seccomp filter (libseccomp through ``pyseccomp``) on this process and its future children:
    :data:`DENIED_SYSCALLS` and namespace-creating ``clone`` fail with EPERM, ``clone3`` with ENOSYS (so libc
    falls back to ``clone``, whose flags the filter can read). With ``no_network`` (no network namespace to
    stand on) ``socket`` of any family but AF_UNIX and every ``connect`` fail with EACCES too: no UDP, raw or
    netlink socket, and no path to a UNIX socket of the host (a display, D-Bus, a container runtime); the
    worker's own connection to the host is a socket pair made before. Returns what was installed."""
    import errno

    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:  # OSError: libseccomp.so.2 is missing
        return f"unavailable ({type(exc).__name__}: {exc})"
    flt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    denied = 0
    for name in DENIED_SYSCALLS:
        try:
            flt.add_rule(seccomp.ERRNO(errno.EPERM), name)
            denied += 1
        except (RuntimeError, ValueError, OSError):  # not a syscall on this architecture
            continue
    for flag in _CLONE_NAMESPACE_FLAGS:
        flt.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    try:
        flt.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    except (RuntimeError, ValueError, OSError):
        pass
    if no_network:
        flt.add_rule(seccomp.ERRNO(errno.EACCES), "socket", seccomp.Arg(0, seccomp.NE, AF_UNIX))
        flt.add_rule(seccomp.ERRNO(errno.EACCES), "connect")
    flt.load()
    return f"deny-list ({denied} syscalls + namespace clone{' + sockets' if no_network else ''})"
