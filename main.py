if __name__ == "__main__":  # (a job's child process imports this file again: it must not open a window)
    from mdpviz.app import run

    raise SystemExit(run())
