import type { NextFunction, Request, Response } from 'express';
import { randomBase62 } from '../ids.js';

export const REQUEST_ID_HEADER = 'Service-Request-Id';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
    }
  }
}

/** Every response, errors and unknown routes included, carries `Service-Request-Id`. */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    req.requestId = `req_${randomBase62(20)}`;
    res.setHeader(REQUEST_ID_HEADER, req.requestId);
    next();
  };
}
