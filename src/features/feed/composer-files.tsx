import { FileText, ImagePlus, X } from 'lucide-react';
import { useCallback, useId, useRef } from 'react';
import { LIMITS } from '../../../schema/constants';
import { formatFileSize } from '../../../schema/format';
import { fileExtension, IMAGE_EXTENSIONS, UPLOAD_ACCEPT } from '../../../schema/upload-rules';
import { Button } from '../../components/ui/button';

/** A file chosen in the composer; the key tells two files of the same name apart. */
export interface PickedFile {
  key: string;
  file: File;
}

export function isImageName(name: string): boolean {
  return (IMAGE_EXTENSIONS as readonly string[]).includes(fileExtension(name));
}

/** A thumbnail drawn from the local file; its object URL lives exactly as long as the <img>. */
function LocalThumbnail({ file }: { file: File }) {
  const attach = useCallback(
    (img: HTMLImageElement | null) => {
      if (!img) return;
      const url = URL.createObjectURL(file);
      img.src = url;
      return () => URL.revokeObjectURL(url);
    },
    [file],
  );
  return <img ref={attach} alt="" className="composer-thumb-image" />;
}

interface ComposerFilesProps {
  files: readonly PickedFile[];
  onAdd: (files: File[]) => void;
  onRemove: (key: string) => void;
  disabled?: boolean;
}

/** The composer's picker: pictures and files, up to 20, with previews and a remove button each. */
export function ComposerFilePicker({ files, onAdd, disabled }: Omit<ComposerFilesProps, 'onRemove'>) {
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const full = files.length >= LIMITS.postUploaderFiles;
  return (
    <>
      <input
        ref={input}
        id={id}
        type="file"
        multiple
        accept={UPLOAD_ACCEPT}
        className="visually-hidden"
        tabIndex={-1}
        aria-label="Add photos or files"
        disabled={disabled || full}
        onChange={(event) => {
          const picked = Array.from(event.target.files ?? []);
          // Cleared so choosing the same file again still fires a change.
          event.target.value = '';
          if (picked.length) onAdd(picked);
        }}
      />
      <Button
        variant="ghost"
        size="sm"
        disabled={disabled || full}
        onClick={() => input.current?.click()}
        title={full ? 'Maximum files reached' : undefined}
      >
        <ImagePlus aria-hidden size={18} />
        {full ? 'Maximum files reached' : 'Photo / File'}
      </Button>
      <span className="composer-count" aria-live="polite">
        {files.length > 0 ? `${files.length}/${LIMITS.postUploaderFiles} files` : ''}
      </span>
    </>
  );
}

/** Previews of the chosen files: picture thumbnails, and name and size for other files. */
export function ComposerFileList({ files, onRemove, disabled }: Omit<ComposerFilesProps, 'onAdd'>) {
  if (files.length === 0) return null;
  return (
    <ul className="composer-files" aria-label="Chosen files">
      {files.map(({ key, file }) => (
        <li key={key} className={isImageName(file.name) ? 'composer-thumb' : 'composer-file'}>
          {isImageName(file.name) ? (
            <LocalThumbnail file={file} />
          ) : (
            <>
              <FileText aria-hidden size={20} />
              <span className="composer-file-text">
                <span className="composer-file-name">{file.name}</span>
                <span className="composer-file-size">{formatFileSize(file.size)}</span>
              </span>
            </>
          )}
          <button
            type="button"
            className="composer-remove"
            aria-label={`Remove ${file.name}`}
            disabled={disabled}
            onClick={() => onRemove(key)}
          >
            <X aria-hidden size={14} />
          </button>
        </li>
      ))}
    </ul>
  );
}
