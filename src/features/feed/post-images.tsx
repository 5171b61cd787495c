import { ChevronLeft, ChevronRight, Download } from 'lucide-react';
import { useState, type ComponentProps } from 'react';
import { LIMITS } from '../../../schema/constants';
import { cardPictureUrl } from '../../../schema/upload-rules';
import { Button } from '../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '../../components/ui/dialog';
import { cx } from '../../lib/cx';
import { downloadImage } from './download-image';

const PLACEHOLDER = '/api/placeholder-image';

/**
 * An <img> that shows the placeholder picture when its own cannot load. `alternative` is tried first: offline,
 * the viewer shows the card's smaller picture, which this device has kept, rather than nothing.
 */
export function FallbackImage({
  src,
  alt,
  alternative,
  ...props
}: ComponentProps<'img'> & { src: string; alt: string; alternative?: string }) {
  const [failed, setFailed] = useState<readonly string[]>([]);
  const shown = [src, alternative].find((candidate) => candidate && !failed.includes(candidate)) ?? PLACEHOLDER;
  return (
    <img
      {...props}
      src={shown}
      alt={alt}
      onError={() => {
        if (shown !== PLACEHOLDER) setFailed((list) => [...list, shown]);
      }}
    />
  );
}

interface PostImagesProps {
  images: readonly string[];
  authorName: string;
}

/**
 * A post's pictures: a grid that opens each larger in a dialog, with a download button. On phones only
 * the first two show until "View All" is pressed (docs/behaviour.md, "Posts and categories"); the rule is CSS so it
 * follows the width.
 */
export function PostImages({ images, authorName }: PostImagesProps) {
  const [showAll, setShowAll] = useState(false);
  const [open, setOpen] = useState<number | null>(null);
  if (images.length === 0) return null;
  const hidden = images.length - LIMITS.mobilePostImages;
  // One picture full width; two or four in pairs; otherwise rows of three (two on phones).
  const columns = images.length === 1 ? 1 : images.length === 2 || images.length === 4 ? 2 : 3;
  const describe = (index: number) => `Picture ${index + 1} of ${images.length} posted by ${authorName}`;

  return (
    <div className="post-images-block">
      <ul className={cx('post-images', `post-images-${columns}`, showAll && 'post-images-all')}>
        {images.map((src, index) => (
          <li key={`${src}-${index}`} className="post-image">
            <button
              type="button"
              className="post-image-open"
              onClick={() => setOpen(index)}
              aria-label={`Open ${describe(index).toLowerCase()}`}
            >
              <FallbackImage src={cardPictureUrl(src)} alt={describe(index)} loading="lazy" decoding="async" />
            </button>
            <button
              type="button"
              className="post-image-download"
              aria-label={`Download picture ${index + 1}`}
              onClick={() => void downloadImage(src)}
            >
              <Download aria-hidden size={16} />
            </button>
          </li>
        ))}
      </ul>
      {hidden > 0 && !showAll ? (
        <Button variant="outline" size="sm" className="post-images-view-all" onClick={() => setShowAll(true)}>
          View All
          <span className="badge badge-brand">+{hidden}</span>
        </Button>
      ) : null}

      <Dialog open={open !== null} onOpenChange={(next) => !next && setOpen(null)}>
        {open !== null ? (
          <DialogContent className="image-dialog">
            <DialogTitle>
              Picture {open + 1} of {images.length}
            </DialogTitle>
            <DialogDescription className="visually-hidden">Posted by {authorName}</DialogDescription>
            <div className="image-dialog-frame">
              <FallbackImage
                src={images[open]}
                alternative={cardPictureUrl(images[open])}
                alt={describe(open)}
                className="image-dialog-image"
              />
            </div>
            <div className="image-dialog-actions">
              {images.length > 1 ? (
                <div className="image-dialog-nav">
                  <Button
                    variant="outline"
                    size="icon"
                    aria-label="Previous picture"
                    onClick={() => setOpen((open - 1 + images.length) % images.length)}
                  >
                    <ChevronLeft aria-hidden size={18} />
                  </Button>
                  <Button
                    variant="outline"
                    size="icon"
                    aria-label="Next picture"
                    onClick={() => setOpen((open + 1) % images.length)}
                  >
                    <ChevronRight aria-hidden size={18} />
                  </Button>
                </div>
              ) : null}
              <Button onClick={() => void downloadImage(images[open])}>
                <Download aria-hidden size={16} />
                Download
              </Button>
            </div>
          </DialogContent>
        ) : null}
      </Dialog>
    </div>
  );
}
