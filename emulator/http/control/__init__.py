"""The control plane: /_emulator/."""
