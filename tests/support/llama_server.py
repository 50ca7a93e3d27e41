"""Runs llama.cpp's HTTP server (PyPI xllamacpp) on 127.0.0.1.

usage: llama_server.py MODEL.gguf PORT [--threads N] [--n-predict N] [--seed N]

Serves the OpenAI-compatible API under /v1 with CORS that lets a page send
`Content-Type` and `Authorization`. Prints "listening <url>" once ready and
runs until killed. Sampling has a fixed seed, so one request gets the
same answer every run (the tests read what it says, not what luck gives).
"""

import argparse
import signal
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("port", type=int)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n-predict", type=int, default=-1)
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--alias", default="SmolLM2-135M-Instruct")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import xllamacpp as x

    p = x.CommonParams()
    p.model.path = args.model
    p.model_alias = {args.alias}
    p.hostnames = ["127.0.0.1"]
    p.port = args.port
    p.cors_headers = "Content-Type, Authorization"
    p.n_ctx = args.ctx
    p.n_predict = args.n_predict
    p.sampling.seed = args.seed
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    server = x.Server(p)
    print(f"listening {server.listening_address}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
