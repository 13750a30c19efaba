"""Mathematical expressions in answers: LaTeX or plain text parsed with sympy, compared by value,
and plain arithmetic evaluated safely (an AST walk, never `eval`)."""

from __future__ import annotations

import ast
import math
import operator
import random
import re
from collections.abc import Callable
from typing import Any

import sympy
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_application,
    implicit_multiplication,
    parse_expr,
    standard_transformations,
)

from scicustom.core.sciif.quantities import SUBSCRIPTS, SUPERSCRIPTS, normalise_text

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "Δ": "Delta", "ε": "epsilon", "ϵ": "epsilon",
    "η": "eta", "θ": "theta", "κ": "kappa", "λ": "lamda", "μ": "mu", "µ": "mu", "ν": "nu", "ρ": "rho",
    "σ": "sigma", "τ": "tau", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Ω": "Omega",
    "Γ": "Gamma", "Λ": "Lamda", "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "ξ": "xi", "ζ": "zeta",
}
FUNCTIONS: dict[str, Any] = {
    "sqrt": sympy.sqrt, "exp": sympy.exp, "log": sympy.log, "ln": sympy.log, "sin": sympy.sin,
    "cos": sympy.cos, "tan": sympy.tan, "asin": sympy.asin, "acos": sympy.acos, "atan": sympy.atan,
    "sinh": sympy.sinh, "cosh": sympy.cosh, "tanh": sympy.tanh, "pi": sympy.pi,
}
_TRANSFORMS = (*standard_transformations, implicit_multiplication, implicit_application, convert_xor)


def parse_expression(text: str) -> sympy.Expr | None:
    """A sympy expression for LaTeX or plain-text math, or None when it does not parse.

    Symbol names are canonicalised so that `\\mu_{0}`, `mu_0` and `μ₀` are the same symbol.
    """
    source = normalise_text(text).strip().strip("$").strip().rstrip(".,;")
    if not source:
        return None
    try:
        if "\\" in source:
            from sympy.parsing.latex import parse_latex

            expr = parse_latex(source)
        else:
            expr = _parse_plain(source)
    except Exception:  # sympy's parsers raise a zoo of exception types on bad input
        return None
    if not isinstance(expr, sympy.Expr):
        return None
    return _canonical_symbols(expr)


def _parse_plain(source: str) -> Any:
    source = re.sub(r"[₀₁₂₃₄₅₆₇₈₉]+", lambda m: "_" + m.group(0).translate(SUBSCRIPTS), source)
    for letter, name in GREEK.items():
        source = source.replace(letter, f" {name} ")
    source = re.sub(r"\s+_", "_", source.replace("π", " pi "))
    source = re.sub(r"[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+", lambda m: "^" + m.group(0).translate(SUPERSCRIPTS), source)
    source = re.sub(r"[·⋅×]", "*", source)
    if not re.fullmatch(r"[\w\s+\-*/^().,]+", source):
        raise ValueError("unsupported characters")
    # Every identifier is a plain symbol except the known functions: sympy would otherwise read
    # I as the imaginary unit, E as Euler's number, gamma as the Gamma function.
    names = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", source))
    local = {n: FUNCTIONS[n] if n in FUNCTIONS else sympy.Symbol(n) for n in names}
    return parse_expr(source, local_dict=local, global_dict={"Integer": sympy.Integer,
                      "Float": sympy.Float, "Rational": sympy.Rational, "Symbol": sympy.Symbol},
                      transformations=_TRANSFORMS, evaluate=True)


def _canonical_symbols(expr: sympy.Expr) -> sympy.Expr:
    renames = {}
    for s in expr.free_symbols:
        name = re.sub(r"[_{}\\\s]", "", str(s))
        if name != str(s):
            renames[s] = sympy.Symbol(name)
    return expr.xreplace(renames) if renames else expr


def align_symbols(candidate: sympy.Expr, reference: sympy.Expr) -> sympy.Expr:
    """Read run-together names in `candidate` as products of the reference's symbols ("gh" -> g*h
    when the reference has g and h), the usual shorthand of hand-written answers."""
    known = {str(s): s for s in reference.free_symbols}
    renames: dict[sympy.Symbol, sympy.Expr] = {}
    for symbol in candidate.free_symbols:
        name = str(symbol)
        if name in known:
            continue
        parts = _split_into(name, known)
        if parts:
            renames[symbol] = sympy.Mul(*(known[p] for p in parts))
    return candidate.xreplace(renames) if renames else candidate


def _split_into(name: str, known: dict[str, sympy.Basic]) -> list[str] | None:
    if not name:
        return []
    for cut in range(len(name), 0, -1):
        head = name[:cut]
        if head in known:
            rest = _split_into(name[cut:], known)
            if rest is not None:
                return [head, *rest]
    return None


def expressions_equivalent(a: sympy.Expr, b: sympy.Expr, *, trials: int = 4, rel_tol: float = 1e-6,
                           seed: int = 7) -> bool:
    """Equal as functions: evaluated at random positive points for the union of their symbols.

    Random evaluation is exact enough for the rational, algebraic and elementary expressions of
    answers, and it never hangs the way `simplify` can.
    """
    symbols = sorted(a.free_symbols | b.free_symbols, key=str)
    rng = random.Random(seed)
    agreed = 0
    for _ in range(trials * 3):
        point = {s: sympy.Float(rng.uniform(0.5, 2.5)) for s in symbols}
        try:
            va = complex(a.evalf(subs=point))
            vb = complex(b.evalf(subs=point))
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        if not all(map(math.isfinite, (va.real, va.imag, vb.real, vb.imag))):
            continue
        if abs(va - vb) > rel_tol * max(abs(va), abs(vb), 1e-300):
            return False
        agreed += 1
        if agreed == trials:
            return True
    return False


_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_CALLS: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt, "exp": math.exp, "ln": math.log, "log": math.log10,
}


def evaluate_arithmetic(text: str) -> float | None:
    """Value of a purely numeric expression ("4π(1.50×10^-9)(2.50×10^-6)"), or None.

    Accepts numbers in scientific notation, + - × · / ÷ ^, parentheses, π, sqrt/√, exp, ln, log;
    implicit multiplication between factors. Anything else (a symbol, a unit) gives None.
    """
    source = arithmetic_to_python(text)
    if source is None:
        return None
    try:
        tree = ast.parse(source, mode="eval")
        value = _walk(tree.body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, TypeError, RecursionError):
        return None
    return value if math.isfinite(value) else None


def arithmetic_to_python(text: str) -> str | None:
    s = normalise_text(text).strip()
    s = re.sub(r"\\(?:times|cdot)", "*", s)
    s = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"((\1)/(\2))", s)
    s = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", s)
    s = s.replace("\\pi", "π").replace("\\left", "").replace("\\right", "")
    s = re.sub(r"[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+", lambda m: "^" + m.group(0).translate(SUPERSCRIPTS), s)
    s = s.replace("{", "(").replace("}", ")").replace("[", "(").replace("]", ")")
    s = re.sub(r"√\s*(\d+(?:\.\d+)?)", r"sqrt(\1)", s).replace("√", "sqrt")
    s = re.sub(r"[×·⋅]", "*", s).replace("÷", "/").replace("π", " pi ")
    s = re.sub(r"(?<=\d)\s*[xX]\s*(?=10\s*\^)", "*", s)  # "4.7 x 10^3"
    if re.search(r"[^0-9eE.+\-*/^()\s]", re.sub(r"\b(?:pi|sqrt|exp|ln|log)\b", "", s)):
        return None
    if not re.search(r"\d", s):
        return None
    s = s.replace("^", "**")
    # Implicit multiplication: "4 pi (2)(3)", "2(3)", ")(" and ") 2".
    s = re.sub(r"(?<=[\d.)])\s*(?=\(|pi\b|sqrt\b|exp\b|ln\b|log\b)", "*", s)
    s = re.sub(r"(?<=\bpi)\s*(?=[\d(]|pi\b|sqrt\b)", "*", s)
    s = re.sub(r"\)\s*(?=\d)", ")*", s)
    return s


def _walk(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _walk(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _walk(node.left), _walk(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 400:
            raise ValueError("exponent too large")
        return float(_BINARY[type(node.op)](left, right))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS
            and len(node.args) == 1 and not node.keywords):
        return float(_CALLS[node.func.id](_walk(node.args[0])))
    raise ValueError(f"unsupported node {type(node).__name__}")
