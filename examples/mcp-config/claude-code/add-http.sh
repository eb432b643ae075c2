#!/bin/sh
# Claude Code, Streamable HTTP transport
claude mcp add --transport http svc http://localhost:3000/mcp --header 'Authorization: Bearer svc_REPLACE_WITH_YOUR_API_KEY'
