import {
  APIPromise,
  APIResource,
  type APIResponse,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/brands/{id}/media', 'get'>;
type Asset = JsonResponse<'/v1/brands/{id}/media', 'post'>;
export type MediaListParams = QueryOf<'/v1/brands/{id}/media', 'get'>;
export type MediaFromUrlParams = JsonBody<'/v1/brands/{id}/media/from-url', 'post'>;
export type MediaUpdateParams = JsonBody<'/v1/media/{id}', 'patch'>;

/**
 * What `media.upload` accepts: a `Blob` or `File`, bytes (`ArrayBuffer`, `Uint8Array`, Node
 * `Buffer`), or a file path (Node, Deno and Bun only).
 */
export type Uploadable = Blob | ArrayBuffer | ArrayBufferView | string;

export interface MediaUploadParams {
  alt?: string | undefined;
  tags?: string[] | undefined;
  /** The file name sent with the bytes; defaults to the File's or path's name, else `upload`. */
  filename?: string | undefined;
}

const baseName = (path: string) => path.split(/[\\/]/).pop() || 'upload';

async function toBlob(file: Uploadable, filename: string | undefined): Promise<{ blob: Blob; name: string }> {
  if (typeof file === 'string') {
    // Imported only when a path is given, so browsers and edge runtimes, which have no file
    // system, never load it and can still upload Blobs and bytes.
    const { readFile } = await import('node:fs/promises');
    return { blob: new Blob([new Uint8Array(await readFile(file))]), name: filename ?? baseName(file) };
  }
  if (file instanceof Blob) {
    const own = (file as Partial<File>).name;
    return { blob: file, name: filename ?? (own || 'upload') };
  }
  if (file instanceof ArrayBuffer) return { blob: new Blob([file]), name: filename ?? 'upload' };
  if (ArrayBuffer.isView(file)) {
    const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
    return { blob: new Blob([bytes.slice()]), name: filename ?? 'upload' };
  }
  throw new TypeError('media.upload: file must be a Blob, File, ArrayBuffer, typed array, Buffer or path');
}

/**
 * The media library. The server sniffs the bytes (JPEG, PNG, WebP, GIF, AVIF, HEIF, TIFF;
 * MP4, MOV, WebM), makes per-platform crops around the focal point and serves each crop
 * publicly at its own URL.
 */
export class Media extends APIResource {
  /** A brand's library, newest first; filter by `tag`. */
  list(
    brandId: string,
    params: MediaListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'media'>, PageOf<ListBody, 'media'>> {
    return pagedList<ListBody, 'media'>(
      this._core,
      encodePath`/brands/${brandId}/media`,
      'media',
      params,
      options,
    );
  }

  /** Uploads an image or video (multipart). */
  upload(
    brandId: string,
    file: Uploadable,
    params: MediaUploadParams = {},
    options?: RequestOptions,
  ): APIPromise<Asset> {
    const sent = toBlob(file, params.filename).then(({ blob, name }): Promise<APIResponse<Asset>> => {
      const form = new FormData();
      form.append('file', blob, name);
      if (params.alt !== undefined) form.append('alt', params.alt);
      for (const tag of params.tags ?? []) form.append('tags', tag);
      return this._core
        .request<Asset>({
          method: 'POST',
          path: encodePath`/brands/${brandId}/media`,
          body: form,
          ...options,
        })
        .withResponse();
    });
    return new APIPromise(sent);
  }

  /** Imports from a public http(s) URL; private and loopback addresses are refused. */
  fromUrl(
    brandId: string,
    body: MediaFromUrlParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/media/from-url', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/brands/${brandId}/media/from-url`,
      body,
      ...options,
    });
  }

  retrieve(assetId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/media/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/media/${assetId}`, ...options });
  }

  /** Sets alt text, tags or the focal point (crops are remade around it). */
  update(
    assetId: string,
    body: MediaUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/media/{id}', 'patch'>> {
    return this._core.request({ method: 'PATCH', path: encodePath`/media/${assetId}`, body, ...options });
  }

  delete(assetId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/media/{id}', 'delete'>> {
    return this._core.request({ method: 'DELETE', path: encodePath`/media/${assetId}`, ...options });
  }

  /** How the asset fits each platform: aspect ratio, size and duration limits, suggested crop. */
  fit(assetId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/media/{id}/fit', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/media/${assetId}/fit`, ...options });
  }
}
