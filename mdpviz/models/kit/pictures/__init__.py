"""What the window draws, computed Qt-free: display data, colour scales, value ranges, ties, the chain of backups, the policy diff."""
