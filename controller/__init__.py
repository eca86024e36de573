"""railguard table controller: rules core, daemon and CLI."""
