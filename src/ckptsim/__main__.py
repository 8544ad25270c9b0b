from ckptsim.cli import main

raise SystemExit(main())
