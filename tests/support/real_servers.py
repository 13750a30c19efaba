"""Moved: the real servers are part of the dev stack (scicustom.devstack.real_servers)."""

from scicustom.devstack.real_servers import *  # noqa: F403
from scicustom.devstack.real_servers import free_port, start_process  # noqa: F401
