"""memoir where agents already live: an MCP server (:mod:`memoir.integrations.mcp`), a
Hermes Agent memory provider and Hermes home import/export
(:mod:`memoir.integrations.hermes`).  Each is an edge over the public API: it exposes
what the library does and adds no behaviour of its own to the journal."""
