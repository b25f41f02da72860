"""python3 -m sbufsim.nki KERNEL.py::FUNC --input NAME=DTYPE[SHAPE]... [--param NAME=V]... [--gen G]
-o OUT.trc: the trace `sbufsim nki` replays. Exit status 3 with file:line when the kernel cannot
be traced, 2 for a bad command line."""

import argparse
import ast
import sys

from . import NkiError, trace


def _pairs(values, what):
    out = {}
    for item in values or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            print(f"sbufsim nki: {what} {item!r}: expected NAME=VALUE", file=sys.stderr)
            sys.exit(2)
        out[name] = value
    return out


def _param(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def main(argv=None):
    parser = argparse.ArgumentParser(prog="sbufsim nki")
    parser.add_argument("kernel")
    parser.add_argument("--input", action="append")
    parser.add_argument("--param", action="append")
    parser.add_argument("--gen", default="cayman")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    inputs = _pairs(args.input, "--input")
    params = {k: _param(v) for k, v in _pairs(args.param, "--param").items()}
    try:
        kt = trace(args.kernel, inputs, params, generation=args.gen)
    except NkiError as e:
        print(f"sbufsim nki: {e}", file=sys.stderr)
        return 3
    except TypeError as e:
        print(f"sbufsim nki: {args.kernel}: {e} (give each kernel argument with --input or --param)",
              file=sys.stderr)
        return 3
    kt.write(args.output)
    print(f"{kt.name}: {len(kt.records)} records, {kt.flops} matmul flops, {kt.hbm_bytes} HBM bytes -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
