// Types for scripts/platform-specs.mjs, which the test fakes (TypeScript) import.
export interface ManifestEntry {
  path: string;
  repository: string;
  commit: string;
  ref?: string;
  source: string;
  sha256: string;
}
export interface Manifest {
  files: ManifestEntry[];
}
export interface Locations {
  cache: string;
  mirror: string;
}
export const ROOT: string;
export const MANIFEST_FILE: string;
export const FETCH_COMMAND: string;
export const RAW_BASE_URL: string;
export class PlatformSpecsError extends Error {}
export function defaultLocations(env?: Record<string, string | undefined>): Locations;
export function readManifest(file?: string): Manifest;
export function sourceUrl(entry: ManifestEntry, baseUrl?: string): string;
export function ensurePlatformSpecs(
  options?: Partial<Locations> & { manifest?: Manifest; allowMissing?: boolean },
): { copied: number; missing: ManifestEntry[]; total: number };
export function fetchPlatformSpecs(
  options?: Partial<Locations> & { manifest?: Manifest; baseUrl?: string; timeoutMs?: number },
): Promise<{ copied: number; downloaded: number; total: number }>;
