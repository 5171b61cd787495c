import { toast } from '../../lib/toast';

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** The name a downloaded picture is saved under: from its upload id and its type. */
function fileNameFor(url: string, type: string): string {
  const id = url.split('/').pop() || 'image';
  return `image-${id}.${EXTENSIONS[type] ?? 'jpg'}`;
}

/** Saves a post's picture to the device, with the toasts (docs/behaviour.md, "Posts and categories"). */
export async function downloadImage(url: string): Promise<void> {
  try {
    const response = await fetch(url, { credentials: 'include' });
    if (!response.ok) throw new Error(`${response.status}: ${response.statusText}`);
    const blob = await response.blob();
    const objectUrl = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = objectUrl;
    link.download = fileNameFor(url, blob.type);
    document.body.append(link);
    link.click();
    link.remove();
    // The browser has started the download by the next turn; the URL can go after that.
    setTimeout(() => URL.revokeObjectURL(objectUrl), 10_000);
    toast({ title: 'Image downloaded' });
  } catch (error) {
    console.error('Image download failed', error);
    toast({
      title: 'Download failed',
      description: 'Could not download the image. Please try again.',
      variant: 'destructive',
    });
  }
}
