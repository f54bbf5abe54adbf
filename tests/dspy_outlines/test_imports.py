"""Import hygiene of dspy_outlines, each check in a fresh interpreter (this one has imported everything).

* Importing the package, the adapter or the model module has no side effects: no MLX, no llama.cpp, no
  Outlines, no OpenBLAS loaded, the BLAS routing not attempted.
* An API-model user reaching Tier 3 (a real ``dspy.LM`` against a loopback OpenAI-compatible server) never
  imports the local stack.
* The first model load routes BLAS before MLX's library is loaded, so the fast path is still in place.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from dspy_outlines.models import blas

# Module prefixes an API-model user must never import.
LOCAL_STACK = (
    "mlx",
    "mlx_lm",
    "llama_cpp",
    "outlines",
    "outlines_core",
    "llguidance",
    "dspy_outlines.lm",
    "dspy_outlines.engines",
    "dspy_outlines.models",
    "dspy_outlines.processors",
    "dspy_outlines.cpu_bitmask",
)

_REPORT = """
import json, sys
heavy = [m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in {prefixes!r})]
with open("/proc/self/maps") as f:
    maps = f.read() if sys.platform.startswith("linux") else ""
print(json.dumps({{"heavy": sorted(heavy), "openblas": "libopenblas" in maps, "extra": extra}}))
"""


def _run(code: str, prefixes: tuple[str, ...] = LOCAL_STACK, timeout: int = 300) -> dict:
    script = textwrap.dedent(code) + _REPORT.format(prefixes=prefixes)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_the_package_and_adapter_loads_nothing_local():
    result = _run("""
        import dspy_outlines
        import dspy_outlines.adapter
        from dspy_outlines import OutlinesAdapter
        OutlinesAdapter(tiers="auto")
        extra = None
    """)
    assert result["heavy"] == []
    assert not result["openblas"]


def test_importing_the_model_module_has_no_side_effect():
    result = _run(
        """
        import dspy_outlines.models
        from dspy_outlines.models.blas import fast_blas_status
        extra = fast_blas_status()
    """,
        prefixes=("mlx", "mlx_lm", "outlines", "llama_cpp"),
    )
    assert result["heavy"] == []
    assert not result["openblas"], "importing dspy_outlines.models loaded OpenBLAS"
    assert result["extra"] == {"library": None, "reason": "not attempted", "gemv_shim": None}


def test_api_model_through_tier3_never_imports_the_local_stack():
    # A real dspy.LM (litellm) against a loopback OpenAI-compatible server: tier 1 and tier 2 get prose that
    # does not parse, tier 3 sends a JSON-schema response_format and gets the object back.
    result = _run("""
        import json, threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from typing import Literal

        import dspy
        from dspy_outlines.adapter import OutlinesAdapter

        formats = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                formats.append((body.get("response_format") or {}).get("type"))
                content = '{"sentiment": "positive"}' if body.get("response_format") else "I think it is nice."
                reply = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": content}}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        lm = dspy.LM("openai/gpt-4o-mini", api_base=f"http://127.0.0.1:{server.server_port}/v1", api_key="x",
                     cache=False, num_retries=0)
        adapter = OutlinesAdapter(skip_after=None)
        with dspy.context(lm=lm, adapter=adapter):
            out = dspy.Predict("review -> sentiment: Literal['positive', 'negative']")(review="Nice!")
        server.shutdown()
        metrics = adapter.metrics
        extra = {"sentiment": out.sentiment, "formats": formats,
                 "tiers": [metrics[t]["success"] for t in ("tier1", "tier2", "tier3")]}
    """)
    assert result["extra"]["sentiment"] == "positive"
    assert result["extra"]["tiers"] == [0, 0, 1]
    assert result["extra"]["formats"][-1] == "json_schema"
    assert result["heavy"] == [], f"Tier 3 for an API model imported {result['heavy']}"


@pytest.mark.real_model
def test_first_model_load_routes_blas_before_mlx_is_loaded():
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux-only: BLAS routing is for the mlx[cpu] wheel")
    if blas.find_openblas() is None or os.environ.get(blas.DISABLE_ENV):
        pytest.skip("OpenBLAS is not installed (apt-get install libopenblas0-pthread)")
    # An import hook notes what the process has mapped at the moment mlx.core is first imported.
    result = _run(
        """
        import sys
        seen = {}

        class Watch:
            def find_spec(self, name, path=None, target=None):
                if name == "mlx.core" and not seen:
                    with open("/proc/self/maps") as f:
                        maps = f.read()
                    seen.update(openblas="libopenblas" in maps, shim="gemv_shim_" in maps)
                return None

        sys.meta_path.insert(0, Watch())
        import dspy_outlines
        from dspy_outlines.models import load_model
        from dspy_outlines.models.blas import fast_blas_status
        before = fast_blas_status()["reason"]
        load_model()
        extra = {"before": before, "at_mlx_import": seen, "after": fast_blas_status()}
    """,
        prefixes=(),
    )
    extra = result["extra"]
    assert extra["before"] == "not attempted"
    assert extra["at_mlx_import"]["openblas"], "mlx.core was loaded before OpenBLAS"
    assert extra["after"]["reason"] == "loaded"
    if extra["after"]["gemv_shim"] is not None:
        assert extra["at_mlx_import"]["shim"], "mlx.core was loaded before the matrix-vector shim"
