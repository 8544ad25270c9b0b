import sys

try:
    from ckptsim.cli import main
except KeyboardInterrupt:  # Ctrl-C while Python imports the command line
    print("ckptsim: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
