import { routeKit } from '../platform/http/index.js';
import type { CommerceAuth } from './auth.js';

export const defineRoute = routeKit<CommerceAuth>();
