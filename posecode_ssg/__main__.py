import sys

from posecode_ssg.cli import main

sys.exit(main())
