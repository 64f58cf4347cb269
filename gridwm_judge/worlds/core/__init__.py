"""What every world's simulator shares: audited group records, the draw loop, shared gates and
the audit JSONL writer. Imports no simulator."""
