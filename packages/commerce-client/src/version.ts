// A named import of one field: bundlers inline just the version string, not the manifest.
import { version } from '../package.json';

export const VERSION: string = version;
