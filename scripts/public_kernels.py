#!/usr/bin/env python3
"""Trace the public NKI kernels of aws-neuron/nki-samples with sbufsim's NKI front-end, each at
the shapes its own driver (a __main__ block, a *_torch.py script or a unit test) uses, and print
one line per case: traced (records, seconds) or failed (seconds, the front-end's reason).

    scripts/public_kernels.py ROOT [ROOT...] [--only SUBSTRING] [--timeout S] [--sbufsim EXE [--top-line]]

The kernels are not part of sbufsim: each ROOT is a checkout (or `git archive`) of nki-samples,
and a case's file is looked up under each ROOT in turn. The current tree has the tutorials; the
legacy tutorials (layernorm, rmsnorm, softmax, rotary, sd_attention) and the reference kernels
are in its history (before "Remove legacy kernels" and "Remove reference kernels"), e.g.

    git -C nki-samples archive HEAD | tar -x -C /tmp/nki-samples
    git -C nki-samples archive 8370e11^ | tar -x -C /tmp/nki-legacy
    scripts/public_kernels.py /tmp/nki-samples /tmp/nki-legacy

Each case runs in a process of its own (a kernel's module-level imports and sys.path stay its
own), bounded by --timeout seconds (default 60: the target is a trace in under a minute). The
exit status is 0 when every case traced, else 1."""

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

T = "src/nki_samples/tutorials/"
R = "src/nki_samples/reference/"
ATTN = T + "attention_fwd_performance/attention_kernels.py"
MM = T + "matrix_multiplication/matrix_multiplication_nki_kernels.py"


def nl(name):
    """A parameter that is an nki.language dtype (resolved inside the tracing process)."""
    return ("nl", name)


def expr(text):
    """A parameter evaluated among the kernel module's names (sbufsim.nki.kernel_expr)."""
    return ("expr", text)


def case(name, path, func, inputs, params=None, grid=None, gen="cayman"):
    return {"name": name, "path": path, "func": func, "inputs": inputs, "params": params or {},
            "grid": grid, "gen": gen}


def _attention():
    # test_attention.py: d_head 128; seqlen 128 for v1 and v2 (no tiling), 4096 for the others;
    # bf16 in its benchmark mode
    cases = []
    for v in ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v8a", "v9", "v10", "v11"]:
        s = 128 if v in ("v1", "v2") else 4096
        cases.append(case(f"attn_fwd_{v}", ATTN, f"attn_fwd_{v}",
                          {"q": f"bf16[128,{s}]", "k": f"bf16[128,{s}]", "v": f"bf16[128,{s}]"}))
    return cases


CASES = [
    *_attention(),
    # matrix_multiplication_torch.py: the basic kernel at 64x128x512, the others at 4096x1024x2048
    case("matmul_basic", MM, "nki_matmul_basic_", {"lhsT": "bf16[128,64]", "rhs": "bf16[128,512]"}),
    *[case(f"matmul_{k}", MM, f"nki_matmul_{k}_", {"lhsT": "bf16[1024,4096]", "rhs": "bf16[1024,2048]"})
      for k in ("tiled", "hoist_load", "block_free_dimension", "fully_optimized")],
    # the public kernel-optimization guide's sizes (4096x8192x8192 fp32 blocked stages)
    case("matmul_block_free_fp32_big", MM, "nki_matmul_block_free_dimension_",
         {"lhsT": "fp32[8192,4096]", "rhs": "fp32[8192,8192]"}),
    case("matmul_fully_optimized_fp32_big", MM, "nki_matmul_fully_optimized_",
         {"lhsT": "fp32[8192,4096]", "rhs": "fp32[8192,8192]"}),
    # average_pool2d_torch.py: C, H, W = 2, 6, 6, pool 2
    case("average_pool2d", T + "average_pool2d/average_pool2d_nki_kernels.py", "tensor_avgpool_kernel",
         {"in_tensor": "bf16[2,6,6]"}, {"pool_size": 2}),
    # transpose2d_torch.py: P, X, Y = 5, 3, 4 int8
    case("transpose2d", T + "transpose2d/transpose2d_nki_kernels.py", "tensor_transpose2D_kernel_",
         {"in_tensor": "int8[5,12]"}, {"shape2D": (3, 4)}),
    # tensor_addition: the kernels' own __main__ (fp16 [256,1024]; [512,2048] for two cores)
    case("tensor_add", T + "tensor_addition/tensor_addition_nki_kernels.py", "nki_tensor_add",
         {"a_input": "fp16[256,1024]", "b_input": "fp16[256,1024]"}),
    case("tensor_add_kernel_grid", T + "tensor_addition/tensor_addition_nki_kernels.py", "nki_tensor_add_kernel_",
         {"a_input": "fp16[256,1024]", "b_input": "fp16[256,1024]"}, grid=(2, 2)),
    case("spmd_tensor_add", T + "tensor_addition/spmd_tensor_addition_nki_kernels.py", "nki_tensor_add",
         {"a_input": "fp16[256,1024]", "b_input": "fp16[256,1024]"}),
    case("spmd_multiple_nc_tensor_add", T + "tensor_addition/spmd_multiple_nc_tensor_addition_nki_kernels.py",
         "nki_tensor_add_nc2", {"a_input": "fp16[512,2048]", "b_input": "fp16[512,2048]"}),
    # mamba_nki_kernels.py defaults: batch 1, seq_len 2048, channels 256, state 16 (fp32)
    *[case(f"mamba_{v}", T + "fused_mamba/mamba_nki_kernels.py", f"mamba_{v}",
           {"delta": "fp32[1,256,2048]", "u": "fp32[1,256,2048]", "A": "fp32[256,16]",
            "B": "fp32[1,16,2048]", "C": "fp32[1,16,2048]"}) for v in ("v1", "v2", "v3")],
    # mx_toplevel.py: M, K, N = 128, 128, 512 (x4 packed: K rows of M/N x4 elements); copy-strided K=512
    case("mx_offline_quantized", T + "mxfp-matmul/mx_kernels.py", "kernel_offline_quantized_mx_matmul",
         {"stationary_mx_data": "fp8e4x4[128,128]", "stationary_mx_scale": "uint8[16,128]",
          "moving_mx_data": "fp8e4x4[128,512]", "moving_mx_scale": "uint8[16,512]"},
         {"mx_dtype": nl("float8_e4m3fn_x4")}, gen="mariana"),
    case("mx_on_device_quantize", T + "mxfp-matmul/mx_kernels.py", "kernel_on_device_quantize_matmul_mx",
         {"stationary_mx_data": "fp8e4x4[128,128]", "stationary_mx_scale": "uint8[16,128]",
          "moving_data_bf16": "bf16[128,2048]"},
         {"stationary_mx_dtype": nl("float8_e4m3fn_x4"), "moving_mx_dtype": nl("float8_e4m3fn_x4")}, gen="mariana"),
    *[case(f"mx_copy_strided_{'tensor_copy' if tc else 'dma'}", T + "mxfp-matmul/mx_kernels.py",
           "kernel_copy_strided_quantize_matmul_mx", {"stationary_hbm": "bf16[512,128]", "moving_hbm": "bf16[512,512]"},
           {"mx_dtype": nl("float8_e4m3fn_x4"), "use_tensor_copy": tc}, gen="mariana") for tc in (True, False)],
    # legacy tutorials (8370e11^): layernorm's defaults 4096 x 8192 fp32; rmsnorm_torch.py [250,512]
    *[case(f"layernorm_{v}", T + "layernorm/layernorm_nki_kernel.py", f"nki_layernorm_kernel_{v}",
           {"input_tensor": "fp32[4096,8192]", "gamma_vector": "fp32[8192]", "beta_vector": "fp32[8192]"},
           {"epsilon": 1e-5}) for v in ("v1", "v2")],
    case("rmsnorm", T + "rmsnorm/rmsnorm_nki_kernels.py", "nki_rmsnorm_kernel",
         {"a_tensor": "fp32[250,512]", "g_tensor": "fp32[512]"}),
    case("softmax", T + "softmax/softmax_nki_kernels.py", "nki_softmax_kernel", {"a_tensor": "fp32[256,1024]"}),
    # rotary_nki_kernels.py's own defaults: kernel[bs, nh] with bs 2, nh 32, head_dim 128 and
    # seq_len 64, 128, 256 (fp32: torch.randn); cos and sin are [bs, seq_len, head_dim]
    *[case(f"rotary_s{s}", T + "rotary/rotary_nki_kernels.py", "nki_apply_rotary_embedding",
           {"q": f"fp32[2,32,{s},128]", "k": f"fp32[2,32,{s},128]", "cos": f"fp32[2,{s},128]",
            "sin": f"fp32[2,{s},128]"}, grid=(2, 32)) for s in (64, 128, 256)],
    case("sd_attention", T + "sd_attention/sd_attention_nki_kernels.py", "fused_self_attn_for_SD_small_head_size",
         {"q_ref": "fp32[4096,64]", "k_ref": "fp32[4096,64]", "v_ref": "fp32[4096,64]"}),
    # reference kernels: their unit tests' perf cases (the smallest where several)
    # test_flash_attn_fwd.py's perf rows at 16k x 16k (one head, no training): causal, and with
    # its 4096 sliding window; its config the kernel module's FlashConfig
    *[case(f"ref_flash_fwd{name}", R + "attention.py", "flash_fwd",
           {"q": "bf16[1,1,96,16384]", "k": "bf16[1,1,96,16384]", "v": "bf16[1,1,16384,96]"},
           {"seed": None, "use_causal_mask": True, "mixed_precision": True, "sliding_window": window,
            "config": expr("FlashConfig(seq_tile_size=2048, training=False)")}, grid=(1, 1))
      for name, window in (("", -1), ("_sliding", 4096))],
    # (inference: seed None, as the test passes it) its numerical rows of one head, fp32 and
    # causal: 4096 x 4096, 8192 x 4096, 4096 x 8192, and 4096 x 4096 in a 1024 sliding window
    *[case(f"ref_flash_fwd_{sq // 1024}k_{sk // 1024}k{'_sliding' if window > 0 else ''}", R + "attention.py",
           "flash_fwd", {"q": f"fp32[1,1,128,{sq}]", "k": f"fp32[1,1,128,{sk}]", "v": f"fp32[1,1,{sk},128]"},
           {"seed": None, "use_causal_mask": True, "sliding_window": window,
            "config": expr("FlashConfig(seq_tile_size=2048, training=False)")}, grid=(1, 1))
      for sq, sk, window in ((4096, 4096, -1), (8192, 4096, -1), (4096, 8192, -1), (4096, 4096, 1024))],
    # test_flash_attn_bwd.py: its numerical shape (4 heads of 128 x 4096) in its benchmark's bf16
    case("ref_flash_bwd", R + "attention.py", "flash_attn_bwd",
         {"q_ref": "bf16[1,4,128,4096]", "k_ref": "bf16[1,4,128,4096]", "v_ref": "bf16[1,4,128,4096]",
          "o_ref": "bf16[1,4,128,4096]", "dy_ref": "bf16[1,4,128,4096]", "lse_ref": "fp32[1,4,128,32]",
          "seed_ref": "int32[1]"}, {"use_causal_mask": True, "mixed_precision": True}, grid=(1, 4)),
    case("ref_sd_attention", R + "attention.py", "fused_self_attn_for_SD_small_head_size",
         {"q_ref": "bf16[1,128,4096]", "k_ref": "bf16[1,4096,128]", "v_ref": "bf16[1,4096,128]"}, grid=(1,)),
    # test_allocated_SD_attention_small_head.py's perf rows: 4096 fp32 and bf16, 5120 bf16
    *[case(f"ref_allocated_sd_attention_{dt}_{s}", R + "allocated_attention.py",
           "allocated_fused_self_attn_for_SD_small_head_size",
           {"q_ref": f"{dt}[1,128,{s}]", "k_ref": f"{dt}[1,128,{s}]", "v_ref": f"{dt}[1,{s},128]"}, grid=(1,))
      for dt, s in (("bf16", 4096), ("fp32", 4096), ("bf16", 5120))],
    case("ref_allocated_fused_linear", R + "allocated_fused_linear.py", "allocated_fused_rms_norm_qkv",
         {"hidden": "bf16[1,128,1024]", "weights": "bf16[1024,512]"}),
    # no driver in the repository: [B, S, H] bf16 as its docstring lays it out; its kargs, the
    # kernel module's dataclass with RMS normalization (its default) and no clipping bound
    case("ref_rmsnorm_quant", R + "rmsnorm_quant/rmsnorm_quant.py", "rmsnorm_quant_kernel",
         {"hidden": "bf16[1,128,1024]", "ln_w": "bf16[1024]"},
         {"kargs": expr("RmsNormQuantKernelArgs(lower_bound=0.0)")}),
    case("ref_double_row_matmul", R + "double_row_matmul.py", "quantized_double_row_matmul",
         {"lhs": "bf16[512,16384]", "rhs_quantized": "fp8e4[8192,2048]", "rhs_scale": "fp32[128,1024]"},
         {"TILES_IN_BLOCK_M": 2, "TILES_IN_BLOCK_N": 2, "TILES_IN_BLOCK_K": 16}),
    case("ref_add_nx8x128x512", R + "tutorial.py", "add_kernel_nx8x128x512",
         {"a_ptr": "fp32[2,8,128,512]", "b_ptr": "fp32[2,8,128,512]"}, {"n_elements": 2 * 8 * 128 * 512}, grid=(2,)),
    # test_resize_nearest.py's perf rows: 30 x 20 to 59 x 38 of 1280 channels
    *[case(f"ref_resize_nearest_{dt}_b{b}", R + "vision.py", "resize_nearest_fixed_dma_kernel",
           {"data_tensor": f"{dt}[{b},30,20,1280]"}, {"out_shape": (b, 59, 38, 1280)})
      for dt, b in (("fp16", 1), ("bf16", 1), ("fp32", 10))],
    # test_adaptive_avg_pool2d.py's perf rows
    *[case(f"ref_adaptive_avg_pool2d_{dt}_{n}x{c}x{h}x{w}_{size if isinstance(size, int) else 'x'.join(map(str, size))}",
           R + "vision.py", "adaptive_avg_pool2d_kernel", {"in_tensor": f"{dt}[{n},{c},{h},{w}]"}, {"output_size": size})
      for n, c, h, w, size, dt in ((1, 64, 56, 56, 7, "fp32"), (2, 128, 28, 28, 7, "fp32"), (1, 256, 14, 14, 7, "fp16"),
                                   (4, 64, 56, 56, (7, 7), "fp32"), (2, 128, 28, 28, (14, 14), "fp32"),
                                   (1, 512, 7, 7, 1, "fp32"), (8, 64, 32, 32, (4, 4), "fp16"),
                                   (2, 2048, 32, 32, (3, 3), "fp32"), (2, 64, 256, 256, 1, "fp32"))],
    case("ref_select_and_scatter", R + "vision.py", "select_and_scatter_kernel",
         {"operand_tensor": "fp32[8,64,112,112]", "source_tensor": "fp32[8,64,56,56]"}),
]


def _package_path(exe):
    """Puts the sbufsim package on sys.path when it is not importable: the build tree's beside
    --sbufsim's executable, else this source tree's python/ (tracing needs only the standard
    library). The case processes inherit it through PYTHONPATH."""
    try:
        import sbufsim  # noqa: F401
        return
    except ImportError:
        pass
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidates = [os.path.join(os.path.dirname(os.path.abspath(exe)), "python")] if exe else []
    for path in [*candidates, os.path.join(here, "python")]:
        if os.path.isfile(os.path.join(path, "sbufsim", "__init__.py")):
            sys.path.insert(0, path)
            os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [path, os.environ.get("PYTHONPATH")]))
            return


def _find(roots, path):
    for root in roots:
        full = os.path.join(root, path)
        if os.path.isfile(full):
            return full
    return None


def _run(c, full, out, trace_path=None):
    """One case in its own process: puts (status, seconds, records, reason) on `out`; the trace is
    written to trace_path when given."""
    from sbufsim import nki
    from sbufsim.nki._dtypes import DTYPES
    def param(v):
        if isinstance(v, tuple) and v and v[0] == "nl":
            return DTYPES[v[1]]
        return nki.kernel_expr(v[1]) if isinstance(v, tuple) and v and v[0] == "expr" else v
    params = {k: param(v) for k, v in c["params"].items()}
    start = time.monotonic()
    try:
        kt = nki.trace(f"{full}::{c['func']}", c["inputs"], params, generation=c["gen"],
                       **({"grid": c["grid"]} if c["grid"] else {}))
    except Exception as e:  # the reason is the result
        text = str(e).replace(os.path.dirname(full) + os.sep, "")
        out.put(("failed", time.monotonic() - start, 0, f"{type(e).__name__}: {text}".splitlines()[0][:300]))
        return
    seconds = time.monotonic() - start
    if trace_path:  # an SPMD launch on several cores: core i's trace beside core 0's, TRACE.coreI
        for core in kt.cores:
            core.write_scratch(trace_path + (f".core{core.core}" if core.core else ""))
    out.put(("traced", seconds, sum(len(core.records) for core in kt.cores), ""))


def _case(ctx, c, full, timeout, trace_path=None):
    """Runs a case in a process of its own, killed after `timeout` seconds."""
    out = ctx.Queue()
    proc = ctx.Process(target=_run, args=(c, full, out, trace_path))
    proc.start()
    start = time.monotonic()
    try:
        while True:  # a second at a time: a process that died is reported at once, not at the timeout
            try:
                return out.get(timeout=1)
            except Exception:  # queue.Empty
                waited = time.monotonic() - start
                if not proc.is_alive():
                    return "failed", waited, 0, f"the process died (exit status {proc.exitcode})"
                if waited >= timeout:
                    return "failed", waited, 0, f"no result within {timeout:.0f} s"
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()


def _top_line(lines):
    """The source line with the largest share of the critical path, as `FILE:LINE CALLS SHARE %`."""
    if not lines:
        return "no source lines"
    where, line = max(lines.items(), key=lambda item: item[1]["critical_share"])
    return f"{where} {line['calls']} {100 * line['critical_share']:.1f} %"


def _replay(exe, trace_path, timeout, generation, top_line=False):
    """`check`'s verdict and `run`'s total cycles of a written trace, as a short text; a launch on
    several cores (TRACE.core1, ...): each core checked and replayed with its share of the HBM
    bandwidth (sbufsim.nki.hbm_share), the launch's cycles its latest core's. With top_line, core
    0's line with the largest share of its critical path too."""
    paths = [trace_path] + sorted((p for p in (f"{trace_path}.core{i}" for i in range(1, 9)) if os.path.exists(p)))
    share = []
    if len(paths) > 1:
        from sbufsim import nki
        share = ["--set", f"dma.hbm_gbps={nki.hbm_share(generation, len(paths))!r}"]
    try:
        verdicts, cycles, tops = [], [], []
        for path in paths:
            check = subprocess.run([exe, "check", path], capture_output=True, text=True, timeout=timeout)
            findings = [line for line in check.stdout.splitlines() if line.strip()]
            verdicts.append("check ok" if check.returncode == 0 else f"check: {len(findings)} finding(s): " + (
                findings[0] if findings else check.stderr.strip()[:200]))
            run = subprocess.run([exe, "run", path, "--json", "-", "--quiet", "--gen", generation, *share],
                                 capture_output=True, text=True, timeout=timeout)
            if run.returncode != 0:
                return f"{verdicts[-1]}; run failed: {run.stderr.strip()[:200]}"
            result = json.loads(run.stdout)["runs"][0]
            cycles.append(result["run"]["total_cycles"])
            tops.append(_top_line(result.get("line")))
        verdict = next((v for v in verdicts if v != "check ok"), "check ok")
        cores = f" (the latest of {len(paths)} cores: {' / '.join(map(str, cycles))})" if len(paths) > 1 else ""
        return f"{verdict}; {max(cycles)} cycles{cores}" + (f"; top line {tops[0]}" if top_line else "")
    except subprocess.TimeoutExpired:
        return "check/run: no result within the timeout"
    except OSError as e:  # the executable missing or being rebuilt
        return f"check/run: {exe} did not start ({e.strerror})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", help="nki-samples checkouts, searched in order")
    parser.add_argument("--only", help="run only the cases whose name contains this")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--sbufsim", metavar="EXE", help="check each trace with `EXE check` and replay it with "
                        "`EXE run` (its cycles and the check's findings are printed after the record count)")
    parser.add_argument("--top-line", action="store_true", help="with --sbufsim, also the source line with the "
                        "largest share of the critical path (core 0's), as docs/nki.md's table of them gives it")
    args = parser.parse_args()
    _package_path(args.sbufsim)
    cases = [c for c in CASES if not args.only or args.only in c["name"]]
    ctx = multiprocessing.get_context("spawn")
    traced = 0
    scratch = tempfile.mkdtemp(prefix="public_kernels.")
    for c in cases:
        full = _find(args.roots, c["path"])
        if full is None:
            status, seconds, records, reason = "missing", 0.0, 0, f"{c['path']} is under none of the roots"
        else:
            trace_path = os.path.join(scratch, c["name"] + ".trc") if args.sbufsim else None
            status, seconds, records, reason = _case(ctx, c, full, args.timeout, trace_path)
        traced += status == "traced"
        detail = f"{records} records" if status == "traced" else reason
        if status == "traced" and args.sbufsim:
            detail += "  " + _replay(args.sbufsim, trace_path, args.timeout, c["gen"], args.top_line)
        print(f"{c['name']:34} {status:7} {seconds:6.1f} s  {detail}", flush=True)
    print(f"{traced} of {len(cases)} cases traced")
    return 0 if traced == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
