"""The I/O core: the live state and its checkpoints, the commit path (group commit),
the projector and the other followers of the journal, the materializer, and the call
context tool handlers receive.  :class:`Engine` puts them together."""

from memoir.engine.caller import CallContext, HeldEntries, ReadMark
from memoir.engine.commit import Caller, CommitQueue, Decision, Pending
from memoir.engine.engine import JOURNAL_FILE, Engine, default_home
from memoir.engine.files import FilesView
from memoir.engine.followers import Follower, Followers
from memoir.engine.live import LiveState
from memoir.engine.materializer import Drift, Materializer
from memoir.engine.projector import Projector

__all__ = [
    "JOURNAL_FILE",
    "CallContext",
    "Caller",
    "CommitQueue",
    "Decision",
    "Drift",
    "Engine",
    "FilesView",
    "Follower",
    "Followers",
    "HeldEntries",
    "LiveState",
    "Materializer",
    "Pending",
    "Projector",
    "ReadMark",
    "default_home",
]
