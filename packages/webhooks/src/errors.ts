/**
 * `missing_header`, `malformed_header`, `timestamp_out_of_tolerance` and `signature_mismatch` are
 * about the request: answer 400. `invalid_secret` is a bug or missing configuration on the
 * receiving side (typically an unset environment variable): alert on it. `invalid_payload` means the
 * body is not something that can be verified or parsed (not raw bytes, or not an event envelope).
 */
export type WebhookSignatureErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_payload'
  | 'invalid_secret';

// A process can hold several copies of this class (the ESM and CJS builds, or the CJS `.` and `./web`
// entries), so `instanceof` checks a registry-wide brand instead of the prototype chain.
const BRAND = Symbol.for('@svc/webhooks:WebhookSignatureError');

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  readonly code: WebhookSignatureErrorCode;

  constructor(code: WebhookSignatureErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}
