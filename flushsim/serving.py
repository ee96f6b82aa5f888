"""Serving the explorer as a Voilà app to a room: a cap on the kernels that run at once.

Every visit to a Voilà page starts a kernel (about 270 MB with flushsim loaded). jupyter_server
culls idle ones (`MappingKernelManager.cull_idle_timeout`, set by `scripts/explorer.sh app`),
but neither it nor Voilà 0.5 can cap how many run at once (voila-dashboards/voila#617, open),
so a burst of visits could exhaust the machine before the culler runs. `CappedKernelManager`
refuses the kernel past `max_kernels` with HTTP 503; `scripts/explorer.sh app` selects it with
`--VoilaConfiguration.multi_kernel_manager_class=flushsim.serving.CappedKernelManager`.
"""

from __future__ import annotations

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from traitlets import Integer


class CappedKernelManager(AsyncMappingKernelManager):
    """An AsyncMappingKernelManager that runs at most `max_kernels` kernels at once."""

    max_kernels = Integer(
        8,
        config=True,
        help="Most kernels running at once; a visit past it gets HTTP 503 (0: no cap).",
    )

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._starting = 0  # starts under way count too: a burst must not slip past the cap

    async def start_kernel(self, *args, kernel_id: str | None = None, **kwargs) -> str:
        """Start a kernel, unless `max_kernels` already run (an existing id is not a new one)."""
        if kernel_id is not None and kernel_id in self:
            return await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
        running = len(self.list_kernel_ids()) + self._starting
        if self.max_kernels and running >= self.max_kernels:
            raise web.HTTPError(
                503,
                f"the explorer already runs its most sessions at once ({running}, "
                f"CappedKernelManager.max_kernels={self.max_kernels}); try again when one "
                "has closed or been culled",
            )
        self._starting += 1
        try:
            return await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
        finally:
            self._starting -= 1
