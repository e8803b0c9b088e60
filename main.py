from mdpviz.app import run

raise SystemExit(run())
