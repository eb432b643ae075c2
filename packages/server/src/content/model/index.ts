import type { Config } from '../../config.js';
import { AppError } from '../../platform/errors.js';
import { simulatedModel } from './simulated.js';
import type { ContentModel } from './types.js';

export type { ContentModel } from './types.js';

const notConfigured = () =>
  new AppError(
    501,
    'MODEL_NOT_CONFIGURED',
    'SERVICE_MODEL=real, but this build has no real model adapter. Set SERVICE_MODEL=simulated, or add an adapter in src/content/model/.',
  );

/**
 * With `SERVICE_MODEL=real` and no adapter, every model call fails loudly instead of quietly
 * falling back to simulated text: nothing is ever faked outside the simulated setting.
 */
export function createContentModel(config: Pick<Config, 'model'>): ContentModel {
  if (config.model === 'simulated') return simulatedModel;
  return {
    kind: 'real',
    suggestIdeas: async () => {
      throw notConfigured();
    },
    draft: async () => {
      throw notConfigured();
    },
    rewrite: async () => {
      throw notConfigured();
    },
  };
}
