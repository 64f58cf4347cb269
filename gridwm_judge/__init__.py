"""GridWM-Judge: does a VLM judge change its verdict for the right reason?

The package generates MiniGrid trajectory groups whose outcome the simulator knows
(Full / NoCue / CF), turns them into a Hugging Face dataset (configs task_a..task_e),
runs judges over it and scores them with State-Conditional Invariance metrics.

Importing the package is cheap: heavy or optional dependencies (evaluate, torch,
transformers, vllm, httpx) are imported only where they are used.
"""

from gridwm_judge.resources import resource_path

__version__ = "0.4.0"

__all__ = ["__version__", "resource_path"]
