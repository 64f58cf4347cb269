import sys

from gridwm_judge.cli import main

sys.exit(main())
