"""The event vocabulary: what a journal record says (payload types, the envelope, the
codec and upcasters).  Where records are kept is :mod:`memoir.journal`."""

from memoir.events.catalog import REGISTRY
from memoir.events.types import ACTORS, Draft, Event, Payload, event_type

__all__ = ["ACTORS", "REGISTRY", "Draft", "Event", "Payload", "event_type"]
