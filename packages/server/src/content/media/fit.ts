import { PLATFORMS, type Platform } from '../domain.js';
import { goesWhole, PLATFORM_MEDIA, type VariantName } from './platforms.js';
import type { MediaAsset, MediaFit } from './schemas.js';

const round = (n: number) => Math.round(n * 1000) / 1000;
const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

/** `fit`'s `why`: a GIF is not "posted whole" on a platform that takes none. */
function whyPreferred(
  asset: MediaAsset,
  animatedGif: boolean,
  platform: Platform,
  rules: (typeof PLATFORM_MEDIA)[Platform],
): string {
  if (asset.kind === 'video') return 'Video has no crops; the original is used on every platform.';
  if (!animatedGif) return rules.why;
  return rules.gifMaxBytes === null
    ? `${platform} takes no animated GIF; its crops are stills of the first frame.`
    : 'An animated GIF is posted whole so it stays animated; its crops are stills.';
}

/**
 * How an asset fits each platform. Images are judged by the crop attach_media would use
 * (its ratio is right by construction, so size is what can fail); video is posted as is,
 * so its own ratio, size and duration are what count.
 */
export function assessFit(asset: MediaAsset): MediaFit {
  const ratio = asset.width && asset.height ? asset.width / asset.height : null;
  const platforms = PLATFORMS.map((platform) => {
    const rules = PLATFORM_MEDIA[platform];
    const warnings: string[] = [];
    const ratioFits =
      ratio === null ? null : ratio >= rules.ratio.min - 0.01 && ratio <= rules.ratio.max + 0.01;
    const maxBytes = asset.kind === 'image' ? rules.imageMaxBytes : rules.videoMaxBytes;
    const animatedGif = goesWhole(asset) && asset.kind === 'image';
    let ok = true;

    if (animatedGif) {
      // An animated GIF goes whole (its crops are stills): the GIF itself is what must fit.
      if (rules.gifMaxBytes === null) {
        ok = false;
        warnings.push(
          `${platform} takes no animated GIF; attach the ${rules.preferred} crop (a still of the first frame) or a video instead.`,
        );
      } else if (asset.bytes > rules.gifMaxBytes) {
        ok = false;
        warnings.push(`The GIF is ${mb(asset.bytes)}; ${platform} accepts up to ${mb(rules.gifMaxBytes)}.`);
      }
    } else if (asset.kind === 'image') {
      const crop = asset.variants[rules.preferred];
      if (ratioFits === false) {
        warnings.push(
          `The original's ratio ${round(ratio ?? 0)} is outside ${platform}'s ${rules.ratio.min}–${rules.ratio.max}; the ${rules.preferred} crop is used instead.`,
        );
      }
      if (crop && crop.bytes > maxBytes) {
        ok = false;
        warnings.push(
          `The ${rules.preferred} crop is ${mb(crop.bytes)}; ${platform} accepts up to ${mb(maxBytes)}.`,
        );
      }
      if (crop?.width && crop.width < 600) {
        warnings.push(`The ${rules.preferred} crop is only ${crop.width}px wide and may look soft.`);
      }
    } else {
      warnings.push('Video is posted as uploaded: no crops are made, so its own ratio must fit.');
      if (ratioFits === false) {
        ok = false;
        warnings.push(
          `The video's ratio ${round(ratio ?? 0)} is outside ${platform}'s ${rules.ratio.min}–${rules.ratio.max}.`,
        );
      }
      if (ratioFits === null)
        warnings.push('The video could not be measured (WebM or unusual MP4), so its ratio is unchecked.');
      if (asset.bytes > maxBytes) {
        ok = false;
        warnings.push(`The video is ${mb(asset.bytes)}; ${platform} accepts up to ${mb(maxBytes)}.`);
      }
      if (asset.duration_ms === null)
        warnings.push('The duration is unknown, so the length limit is unchecked.');
      else if (asset.duration_ms > rules.videoMaxSeconds * 1000) {
        ok = false;
        warnings.push(
          `The video runs ${Math.round(asset.duration_ms / 1000)} s; ${platform} allows ${rules.videoMaxSeconds} s.`,
        );
      }
    }
    const preferred: VariantName = goesWhole(asset) ? 'original' : rules.preferred;
    return {
      platform,
      preferred_variant: preferred,
      preferred_url: asset.variants[preferred]?.url ?? asset.variants.original?.url ?? '',
      accepted_ratio: rules.ratio,
      original_ratio_fits: ratioFits,
      // No limit to quote where the platform takes no GIF at all: null, not a size nothing meets.
      max_bytes: animatedGif ? rules.gifMaxBytes : maxBytes,
      max_duration_s: asset.kind === 'video' ? rules.videoMaxSeconds : null,
      ok,
      warnings,
      why: whyPreferred(asset, animatedGif, platform, rules),
    };
  });
  return {
    asset_id: asset.id,
    kind: asset.kind,
    width: asset.width,
    height: asset.height,
    aspect_ratio: ratio === null ? null : round(ratio),
    duration_ms: asset.duration_ms,
    bytes: asset.bytes,
    platforms,
  };
}
