"""The language of gradbook's own words: the self-checks' feedback and the widgets' labels.

The engine's messages stay torch's English texts (they are what torch prints); what gradbook
says in its own voice follows ``set_language``. English is the default; the environment variable
``GRADBOOK_LANG=zh`` starts a kernel in Chinese.

Translations are data: each layer keeps a catalogue ``{English text: translation}``, whose keys
may hold ``{name}`` fields. ``translate`` finds the template a message was made from, translates
the fields' values too (they are often phrases of their own), and fills them into the
translation. So the code says everything in English, once, and a missing translation shows the
English text rather than failing. A field whose name starts with ``raw`` (``{raw_error}``) is
filled in as it is: an error's own text, which stays as Python or torch wrote it.

>>> import gradbook
>>> catalogue = {"{what} as numbers": "{what}（数字）", "your prediction": "你的预测"}
>>> gradbook.set_language("zh")
>>> translate("your prediction as numbers", catalogue)
'你的预测（数字）'
>>> gradbook.set_language("en")
>>> translate("your prediction as numbers", catalogue)
'your prediction as numbers'
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import cache

LANGUAGES = ("en", "zh")
_current = [os.environ.get("GRADBOOK_LANG", "en") if os.environ.get("GRADBOOK_LANG") in LANGUAGES else "en"]
misses: set[str] | None = None  # a test sets a set here to collect the texts no catalogue translated
matched: set[str] | None = None  # and here to collect the catalogue keys that translated a text
_listeners: list[Callable[[str], None]] = []  # what follows the language without asking (docstrings)
_PROSE = re.compile(r"[A-Za-z]{3,} [a-z]{2,}")  # English words in a row (compiled now: see prepare)
_REPR = re.compile(r"[\[(]*(<.*(>|\.\.\.)|'.*')[\])]*", re.DOTALL)  # an answer's repr (a list of them too), not prose


def set_language(language: str) -> None:
    """Speak ``"en"`` (the default) or ``"zh"`` in the self-checks and the widgets.

    >>> import gradbook
    >>> gradbook.set_language("fr")
    Traceback (most recent call last):
    ...
    ValueError: set_language: 'fr' is not one of 'en', 'zh'
    """
    if language not in LANGUAGES:
        raise ValueError(f"set_language: {language!r} is not one of " + ", ".join(map(repr, LANGUAGES)))
    _current[0] = language
    for listener in _listeners:
        listener(language)


def on_change(listener: Callable[[str], None]) -> None:
    """Call ``listener(language)`` now and after every ``set_language``: for what is read without
    a call that could translate it, such as a docstring that ``help()`` shows."""
    _listeners.append(listener)
    listener(_current[0])


def get_language() -> str:
    """The language set by ``set_language`` (``"en"`` unless changed)."""
    return _current[0]


@cache
def _patterns(keys: tuple[str, ...]) -> list[tuple[re.Pattern[str], str, int]]:
    """The catalogue's templates as regular expressions, with the length of their fixed text."""
    compiled = []
    for key in keys:
        if "{" not in key:
            continue
        parts = re.split(r"\{(\w+)\}", key)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
        compiled.append((re.compile(regex + r"\Z", re.DOTALL), key, sum(len(p) for p in parts[::2])))
    return compiled


def prepare(catalogue: dict[str, str]) -> dict[str, str]:
    """Compile ``catalogue``'s templates now, at import: a self-check may translate later in a
    notebook that replaced the builtins ``re.compile`` relies on (``isinstance``)."""
    _patterns(tuple(catalogue))
    return catalogue


_LETTERS = re.compile(r"[A-Za-z]")


def _best(text: str, catalogue: dict[str, str], patterns: list) -> tuple[str, int, tuple[str, ...]]:
    """The translation of ``text`` that leaves the least English, as (translation, how many of
    its characters were translated or need no translation, the catalogue keys used). Of the
    templates that match, the one covering most wins: for "w after step 2 with shape (3,)",
    "{what} with shape {shape}" (whose {what} is a phrase of its own) beats "w after step {k}";
    between two that cover as much, the one with more fixed text (the more specific) wins."""
    if text in catalogue:
        return catalogue[text], len(text), (text,)
    if not _LETTERS.search(text):  # numbers, shapes, symbols: nothing to translate
        return text, len(text), ()
    best: tuple[str, int, tuple[str, ...]] = (text, 0, ())
    best_fixed = -1
    for pattern, key, fixed in patterns:
        match = pattern.match(text)
        if not match:
            continue
        covered, keys, fields = fixed, (key,), {}
        for name, value in match.groupdict().items():
            if name.startswith("raw"):  # a Python or torch error text: kept as it is
                fields[name] = value
                covered += len(value)
            else:
                fields[name], more, used = _best(value, catalogue, patterns)
                covered, keys = covered + more, keys + used
        if (covered, fixed) > (best[1], best_fixed):  # on a tie, the more specific template
            best, best_fixed = (catalogue[key].format(**fields), covered, keys), fixed
    return best


def colon() -> str:
    """What ends a label before its text in the current language: ``": "`` in English, the
    full-width ``"："`` in Chinese (which takes no space after it).

    >>> import gradbook
    >>> gradbook.set_language("zh"); "期望" + colon() + "x.grad"
    '期望：x.grad'
    >>> gradbook.set_language("en"); "Expected" + colon() + "x.grad"
    'Expected: x.grad'
    """
    return "：" if _current[0] == "zh" else ": "


def translate(text: str, catalogue: dict[str, str]) -> str:
    """``text`` in the current language: its catalogue entry, or its template's, filled in."""
    if _current[0] == "en" or not text:
        return text
    translation, _, keys = _best(text, catalogue, _patterns(tuple(catalogue)))
    if matched is not None:
        matched.update(keys)
    if not keys and misses is not None and _PROSE.search(text) and not _REPR.fullmatch(text):
        misses.add(text)
    return translation
