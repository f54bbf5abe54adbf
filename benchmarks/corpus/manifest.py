"""The real files of the corpus: which train, which are the fresh test split, and the package shipping each.

The test split was fixed in one commit before any policy work on it (issue 28, item 6): its files appear in no
code, comment, demo or earlier run of the project (the earlier test split, ``test_v1``, is kept apart), and
its questions are phrased half by families held out of training (:data:`benchmarks.corpus.grammar.HELD_OUT`).
Training files are none of these and none of the dev split's. Do not move a file between splits.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.corpus import tables as t
from benchmarks.corpus.facts import Quota

QUOTA = Quota()


def _in_package(package: str, *parts: str) -> Callable[[], Path | None]:
    def find() -> Path | None:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(next(iter(spec.submodule_search_locations)), *parts)

    return find


@dataclass(frozen=True)
class RealFile:
    """One real file, the package shipping it, and how it reads as a table."""

    name: str
    split: str  # "train" or "test"
    path: Path | Callable[[], Path | None]
    package: str  # "deb:iso-codes" or "pypi:matplotlib"
    format: str
    table: Callable[[str], t.Table]
    quota: Quota = QUOTA

    def locate(self) -> Path | None:
        path = self.path() if callable(self.path) else self.path
        return path if path is not None and path.is_file() else None


def _json_table(noun: tuple[str, str], key: str, words: dict[str, tuple[str, ...]], path: tuple[str, ...] = ()):
    return lambda text: t.Table(noun, key, t.json_records(text, path), words)


def _afm(text: str) -> t.Table:
    words = {"N": ("glyph name", "name"), "C": ("character code", "code"), "WX": ("width", "advance width")}
    return t.Table(("glyph", "glyphs"), "N", t.afm_glyphs(text), words, numeric=("WX",))


_PRICE_FIELDS = ("litellm_provider", "mode", "max_input_tokens", "max_output_tokens", "input_cost_per_token")


def _prices(text: str) -> t.Table:
    rows = [{k: v for k, v in r.items() if k in (*_PRICE_FIELDS, "_key")} for r in t.json_records(text)]
    words = {"litellm_provider": ("provider", "litellm_provider"), "mode": ("mode",)}
    words |= {"max_input_tokens": ("maximum input tokens", "max_input_tokens")}
    words |= {"max_output_tokens": ("maximum output tokens", "max_output_tokens")}
    words |= {"input_cost_per_token": ("input cost per token", "input_cost_per_token")}
    return t.Table(("model", "models"), "_key", [r for r in rows if "_key" in r and r["_key"] != "sample_spec"], words)


def _ethertypes(text: str) -> t.Table:
    rows = t.line_table(text, ("name", "number"), rest="aliases")
    words = {"number": ("hex number", "type number"), "comment": ("description", "comment")}
    return t.Table(("EtherType", "EtherTypes"), "name", rows, words, skip=("aliases",))


def _locale_alias(text: str) -> t.Table:
    rows = [r for r in t.line_table(text, ("alias", "locale")) if not r["alias"].endswith(":")]
    return t.Table(("locale alias", "locale aliases"), "alias", rows, {"locale": ("locale", "target locale")})


def _lexers(text: str) -> t.Table:
    rows = t.python_dict(text, "LEXERS", ("lexer", "module", "name", "aliases", "filenames", "mimetypes"))
    words = {"name": ("language name", "name"), "filenames": ("file patterns", "filenames")}
    return t.Table(("lexer", "lexers"), "lexer", rows, words)


def _distro(text: str) -> t.Table:
    words = {"eol": ("end of life", "eol"), "release": ("release date",), "created": ("creation date",)}
    return t.Table(("release", "releases"), "series", t.csv_rows(text), words)


def _mplstyle(text: str) -> t.Table:
    return t.Table(("setting", "settings"), "setting", t.colon_pairs(text, "setting", "value"))


ISO = Path("/usr/share/iso-codes/json")
MPL = _in_package("matplotlib")


def _mpl(*parts: str) -> Callable[[], Path | None]:
    return lambda: (MPL() or Path("/nonexistent")).joinpath(*parts)


TEST: tuple[RealFile, ...] = (
    RealFile("currencies", "test", ISO / "iso_4217.json", "deb:iso-codes", "JSON records",
             _json_table(("currency", "currencies"), "alpha_3",
                         {"alpha_3": ("code", "alpha-3 code"), "numeric": ("numeric code", "number")}, ("4217",))),
    RealFile("languages", "test", ISO / "iso_639-2.json", "deb:iso-codes", "JSON records",
             _json_table(("language", "languages"), "alpha_3",
                         {"alpha_2": ("two-letter code", "alpha_2"), "bibliographic": ("bibliographic code",),
                          "common_name": ("common name",)}, ("639-2",))),
    RealFile("scripts", "test", ISO / "iso_15924.json", "deb:iso-codes", "JSON records",
             _json_table(("script", "scripts"), "alpha_4",
                         {"alpha_4": ("code", "four-letter code"), "numeric": ("numeric code", "number")}, ("15924",))),
    RealFile("font_metrics", "test", _mpl("mpl-data/fonts/afm/ptmr8a.afm"),
             "pypi:matplotlib", "Adobe font metrics (AFM)", _afm),
    RealFile("model_prices", "test", _in_package("litellm", "model_prices_and_context_window_backup.json"),
             "pypi:litellm", "JSON object of objects (3.5 MB)", _prices, QUOTA.scaled(1.5)),
    RealFile("ethertypes", "test", Path("/etc/ethertypes"), "deb:netbase", "line table with # comments", _ethertypes),
    RealFile("locale_alias", "test", Path("/usr/share/X11/locale/locale.alias"), "deb:libx11-data",
             "alias table", _locale_alias),
)  # fmt: skip
TRAIN: tuple[RealFile, ...] = (
    RealFile("ubuntu_releases", "train", Path("/usr/share/distro-info/ubuntu.csv"), "deb:distro-info-data", "CSV",
             _distro, QUOTA.scaled(2)),
    RealFile("debian_releases", "train", Path("/usr/share/distro-info/debian.csv"), "deb:distro-info-data", "CSV",
             _distro, QUOTA.scaled(2)),
    RealFile("pygments_lexers", "train", _in_package("pygments", "lexers", "_mapping.py"), "pypi:Pygments",
             "Python dict literal", _lexers, QUOTA.scaled(3)),
    RealFile("language_families", "train", ISO / "iso_639-5.json", "deb:iso-codes", "JSON records",
             _json_table(("language family", "language families"), "alpha_3", {"alpha_3": ("code",)}, ("639-5",)),
             QUOTA.scaled(2)),
    RealFile("former_countries", "train", ISO / "iso_3166-3.json", "deb:iso-codes", "JSON records",
             _json_table(("former country", "former countries"), "alpha_3",
                         {"alpha_4": ("four-letter code",), "withdrawal_date": ("withdrawal date",)}, ("3166-3",))),
    RealFile("mpl_classic_style", "train", _mpl("mpl-data/stylelib/classic.mplstyle"),
             "pypi:matplotlib", "key: value settings", _mplstyle, QUOTA.scaled(3)),
)  # fmt: skip
