#!/bin/sh
# Claude Code, stdio through the svc-mcp relay
claude mcp add svc --env SERVICE_API_URL=http://localhost:3000 --env SERVICE_API_KEY=svc_REPLACE_WITH_YOUR_API_KEY -- npx -y @svc/content-client
