"""MiniWorld (3D) world: cards, controller, variants, gates, rendering and audit records."""
