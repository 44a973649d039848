"""`python -m mcp_service [--stdio] [--host H] [--port P] [--workers N]`: as `kp mcp`."""

from __future__ import annotations

import argparse
import logging

from knowledge_platform.settings import load_settings
from mcp_service.app import run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mcp_service")
    parser.add_argument("--stdio", action="store_true", help="serve stdio instead of HTTP")
    parser.add_argument("--host", default=None)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="HTTP processes sharing the port (default $KP_MCP_WORKERS or 1)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    run(
        load_settings(),
        "stdio" if args.stdio else "http",
        args.host,
        args.port,
        workers=args.workers,
    )


if __name__ == "__main__":
    main()
