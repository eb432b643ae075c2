import { type Authenticators, requireLocalTrust } from '../platform/http/index.js';

/**
 * The REST API trusts local requests as the workspace's person: the local-only gate and the
 * CSRF rules are its protection (see docs/content/security.md). `person` is recorded on
 * approvals and runs so a later sign-in can say who it was.
 */
export interface PersonContext {
  kind: 'person';
  personId: string;
}

export type ContentAuth = {
  public: null;
  person: PersonContext;
};

export const LOCAL_PERSON: PersonContext = { kind: 'person', personId: 'person_local' };

export function contentAuthenticators(): Authenticators<ContentAuth> {
  return {
    public: () => null,
    // Only behind the local-trust guard (guardContentRoutes); requireLocalTrust fails otherwise.
    person: (req) => {
      requireLocalTrust(req);
      return LOCAL_PERSON;
    },
  };
}
