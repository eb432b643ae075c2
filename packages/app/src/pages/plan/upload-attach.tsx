import { useId } from 'preact/hooks';
import { client } from '../../api.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { type Change, conversionNote, type Draft } from './common.js';

/**
 * Uploads a file into the brand's library and attaches it to the draft in one step, with the
 * platform's crop (the server picks it when no variant is named). The asset is titled with the
 * file's name, as on the Media page.
 */
export function UploadAndAttach(props: {
  draft: Draft;
  busy: boolean;
  doing: string;
  run: Change;
  /** Reloads the library list, so the new asset is there to pick again. */
  uploaded: () => Promise<void>;
}) {
  const d = props.draft;
  const id = useId();
  const upload = (file: File) => {
    let note = '';
    return props.run(
      async () => {
        const asset = await client.media.upload(d.brand_id, file);
        note = conversionNote(file, asset);
        await props.uploaded();
        await client.drafts.attachMedia(d.id, { asset_id: asset.id });
      },
      () => `Uploaded ${file.name} and attached it with its ${PLATFORM_NAMES[d.platform]} crop.${note}`,
      'media',
    );
  };
  return (
    <div class="upload-attach">
      <label for={id} class="file-button">
        {props.doing === 'media' ? 'Uploading…' : 'Upload a new file'}
      </label>
      <input
        id={id}
        type="file"
        accept="image/*,video/*"
        disabled={props.busy}
        onChange={(e) => {
          const input = e.currentTarget;
          const file = input.files?.[0];
          input.value = '';
          if (file) upload(file);
        }}
      />
      <p class="muted">
        It is attached to this draft at once, and goes into your Media library too, titled with the file's
        name.
      </p>
    </div>
  );
}
