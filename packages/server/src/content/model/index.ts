import type { Config } from '../../config.js';
import { AppError } from '../../platform/errors.js';
import type { ChatTransportOptions } from './chat-completions.js';
import { realModel } from './real.js';
import { simulatedModel } from './simulated.js';
import type { ContentModel } from './types.js';

export type { ContentModel } from './types.js';

const notConfigured = () =>
  new AppError(
    501,
    'MODEL_NOT_CONFIGURED',
    'SERVICE_MODEL=real, but no model server is configured. Set SERVICE_MODEL_BASE_URL and SERVICE_MODEL_NAME (and SERVICE_MODEL_API_KEY if it needs one), or SERVICE_MODEL=simulated.',
  );

/**
 * `SERVICE_MODEL=real` talks to the configured OpenAI-compatible server. Without one (only
 * possible when a config is built in code: start-up refuses it), every model call fails loudly
 * instead of quietly falling back to simulated text: nothing is faked outside the simulated setting.
 */
export function createContentModel(
  config: Pick<Config, 'model' | 'realModel'>,
  transport: Omit<ChatTransportOptions, 'baseUrl' | 'apiKey' | 'model'> = {},
): ContentModel {
  if (config.model === 'simulated') return simulatedModel;
  if (config.realModel) {
    const { baseUrl, apiKey, name } = config.realModel;
    return realModel({ ...transport, baseUrl, model: name, ...(apiKey ? { apiKey } : {}) });
  }
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
