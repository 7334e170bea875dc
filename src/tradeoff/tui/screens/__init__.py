"""The stakeholder app's screens, one module each; none imports another (the app wires them)."""
