import { routeKit } from '../platform/http/index.js';
import type { ContentAuth } from './auth.js';

export const defineRoute = routeKit<ContentAuth>();
