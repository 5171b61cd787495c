import { Send } from 'lucide-react';
import { type FormEvent, memo, useEffect, useId, useRef, useState } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { LIMITS } from '../../../schema/constants';
import {
  DEFAULT_POST_CATEGORY,
  HOUSE_TAGGED_CATEGORY,
  POST_CONTENT_MAX,
  toPostCategory,
  type PostCategory,
} from '../../../schema/post-rules';
import { isAllowedUploadName, UPLOAD_MESSAGES } from '../../../schema/upload-rules';
import { EmojiButton } from '../../components/emoji/emoji-button';
import { useMentionCandidates, useMentionField } from '../../components/mention-field';
import { MENTIONS_MAX } from '../../../schema/mention-rules';
import { mentionsInText } from '../../lib/mentions';
import { useAuthors } from '../../lib/use-authors';
import { UserAvatar } from '../../components/ui/avatar';
import { Button } from '../../components/ui/button';
import { Input } from '../../components/ui/input';
import { Card } from '../../components/ui/card';
import { Label } from '../../components/ui/label';
import { Select } from '../../components/ui/select';
import { InlineSpinner } from '../../components/ui/spinner';
import { Switch } from '../../components/ui/switch';
import { Textarea } from '../../components/ui/textarea';
import type { UserDatabase } from '../../db/database';
import { databaseNameFor } from '../../db/database-name';
import { readPostDraft, writePostDraft } from '../../db/post-draft-store';
import { useLocalStore } from '../../db/local-store-state';
import { toast } from '../../lib/toast';
import { useConnection } from '../../lib/use-connection';
import {
  ALL_STAFF,
  AlertAudiencePicker,
  audienceHousesOf,
  audienceOf,
  type AlertAudience,
} from './alert-audience-picker';
import { CATEGORY_OPTIONS } from './category-options';
import { ComposerFileList, ComposerFilePicker, type PickedFile } from './composer-files';
import { createPost, CreatePostError } from './create-post';
import { publishAtOf } from './scheduled-posts';
import { formatDateTime } from '../../../schema/format';
import { HousePicker } from '../../components/house-picker';
import { canRequireConfirmation } from '../../../schema/permissions';
import {
  ConfirmationFields,
  NO_CONFIRMATION,
  storedConfirmation,
  type ConfirmationChoice,
} from './confirmation-fields';

let fileKey = 0;

/** Checks picked files against the accepted types and limits (docs/behaviour.md, "Profile and files"); returns those kept and why others were not. */
function acceptFiles(current: number, picked: File[]): { kept: PickedFile[]; problem: string | null } {
  let problem: string | null = null;
  const kept: PickedFile[] = [];
  for (const file of picked) {
    if (!isAllowedUploadName(file.name)) problem = UPLOAD_MESSAGES.typeNotAllowed;
    else if (file.size > LIMITS.uploadMaxBytes) problem = UPLOAD_MESSAGES.tooLarge;
    else if (current + kept.length >= LIMITS.postUploaderFiles) problem = UPLOAD_MESSAGES.tooManyFiles;
    else {
      fileKey += 1;
      kept.push({ key: `f${fileKey}`, file });
    }
  }
  return { kept, problem };
}

/** The post composer (docs/behaviour.md, "Posts and categories"): content, category, urgency, houses and files. */
export const PostComposer = memo(function PostComposer({ db, user }: { db: UserDatabase | null; user: CurrentUser }) {
  const id = useId();
  // A draft kept on the device comes back after a reload (decision 129).
  const draftKey = databaseNameFor(user.id);
  const [saved] = useState(() => readPostDraft(draftKey));
  const [content, setContent] = useState(saved?.content ?? '');
  // Who the text mentions, kept with the draft (decision 144).
  const [mentions, setMentions] = useState<string[]>(saved?.mentions ?? []);
  const contentField = useRef<HTMLTextAreaElement>(null);
  const [category, setCategory] = useState<PostCategory>(
    () => (saved && toPostCategory(saved.category)) ?? DEFAULT_POST_CATEGORY,
  );
  const [isUrgent, setUrgent] = useState(saved?.isUrgent ?? false);
  const [houseTags, setHouseTags] = useState<string[]>(saved?.houseTags ?? []);
  // Urgent posts: all staff, or only the chosen houses (decision 33).
  const [audience, setAudience] = useState<AlertAudience>(() => audienceOf(saved?.audienceHouses ?? []));
  // Admins only: the audience must confirm they have read it (decision 137).
  const [confirmation, setConfirmation] = useState<ConfirmationChoice>(NO_CONFIRMATION);
  const addressed = isUrgent || confirmation.required;
  // Optional: a local date and time to publish the post at (decision 141).
  const [schedule, setSchedule] = useState('');
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // The options stay folded until the composer is used, so phones see the feed sooner.
  const [active, setActive] = useState(false);
  const open = active || content !== '' || files.length > 0;
  const store = useLocalStore();
  const connection = useConnection(store);
  const authors = useAuthors(store, user);
  const candidates = useMentionCandidates(store, user);
  const mention = useMentionField({
    listId: `${id}-mentions`,
    field: contentField,
    value: content,
    onValueChange: setContent,
    candidates,
    mentions,
    onMentionsChange: setMentions,
    multiline: true,
  });

  const blank = content.trim() === '';

  // Every change is kept at once (a reload may come at any moment); an empty composer keeps nothing.
  useEffect(() => {
    const audienceHouses = audienceHousesOf(addressed, audience);
    const draft = { content, category, isUrgent, houseTags, audienceHouses, mentions };
    writePostDraft(draftKey, content.trim() === '' ? null : draft);
  }, [draftKey, content, category, isUrgent, houseTags, audience, addressed, mentions]);

  const chooseCategory = (next: PostCategory) => {
    setCategory(next);
    // docs/behaviour.md, "Posts and categories": changing the category clears the selected houses.
    setHouseTags([]);
  };

  const addFiles = (picked: File[]) => {
    const { kept, problem: why } = acceptFiles(files.length, picked);
    setFiles((current) => [...current, ...kept]);
    setProblem(why);
  };

  const reset = () => {
    setContent('');
    setMentions([]);
    setCategory(DEFAULT_POST_CATEGORY);
    setUrgent(false);
    setHouseTags([]);
    setAudience(ALL_STAFF);
    setConfirmation(NO_CONFIRMATION);
    setSchedule('');
    setFiles([]);
    setProblem(null);
    setActive(false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (blank || busy || !db) return;
    setBusy('Posting...');
    setProblem(null);
    const publishAt = publishAtOf(schedule);
    try {
      const outcome = await createPost({
        db,
        userId: user.id,
        draft: {
          content: content.trim(),
          category,
          isUrgent,
          houseTags,
          audienceHouses: audienceHousesOf(addressed, audience),
          ...storedConfirmation(confirmation),
          publishAt,
          // A name taken out of the text again mentions nobody (decision 144).
          mentions: mentionsInText(mentions, content, (userId) => authors(userId).name, MENTIONS_MAX),
        },
        files: files.map((f) => f.file),
        onUpload: (n, total) => setBusy(`Uploading ${n} of ${total}...`),
      });
      // An urgent post kept on the device has alerted nobody yet: the server sends the alert (decision 116).
      if (isUrgent && (outcome === 'waiting' || connection !== 'online')) {
        toast({
          title: 'Saved on this device — nobody has been alerted yet',
          description: 'The alert goes out when you are back online.',
        });
      }
      if (publishAt && Date.parse(publishAt) > Date.now()) {
        toast({
          title: `Scheduled for ${formatDateTime(publishAt)}`,
          description: 'Until then only you and admins see it.',
        });
      }
      reset();
    } catch (error) {
      console.error('Could not create the post', error);
      setProblem(error instanceof CreatePostError ? error.reason : null);
      // docs/behaviour.md, "Posts and categories": a browser alert, only when nothing could be saved.
      window.alert('Failed to create post. Please try again.');
    } finally {
      setBusy(null);
    }
  };

  return (
    <Card className="composer" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="visually-hidden">
        Create a post
      </h2>
      <form onSubmit={(event) => void submit(event)} className="composer-form">
        <div className="composer-top">
          <UserAvatar user={user} size={40} />
          <Label htmlFor={`${id}-content`} className="visually-hidden">
            Post content
          </Label>
          <Textarea
            ref={contentField}
            id={`${id}-content`}
            value={content}
            {...mention.fieldProps}
            onFocus={() => setActive(true)}
            placeholder={`What's happening, ${user.firstName || 'there'}? Share an update with your team...`}
            rows={open ? 3 : 2}
            className={open ? 'composer-text-open' : undefined}
            maxLength={POST_CONTENT_MAX}
            disabled={Boolean(busy)}
          />
          {mention.suggestions}
        </div>

        <ComposerFileList
          files={files}
          disabled={Boolean(busy)}
          onRemove={(key) => setFiles((current) => current.filter((f) => f.key !== key))}
        />

        {open ? (
          <div className="composer-options">
            <div className="composer-field">
              <Label htmlFor={`${id}-category`}>Category</Label>
              <Select
                id={`${id}-category`}
                value={category}
                onValueChange={chooseCategory}
                options={CATEGORY_OPTIONS}
                disabled={Boolean(busy)}
              />
            </div>
            <div className="composer-urgent">
              <Switch
                id={`${id}-urgent`}
                checked={isUrgent}
                onCheckedChange={setUrgent}
                disabled={Boolean(busy)}
                className="switch-danger"
              />
              <Label htmlFor={`${id}-urgent`}>Mark as urgent</Label>
            </div>
            <div className="composer-field composer-schedule">
              <Label htmlFor={`${id}-schedule`}>Schedule (optional)</Label>
              <Input
                id={`${id}-schedule`}
                type="datetime-local"
                value={schedule}
                onChange={(event) => setSchedule(event.target.value)}
                disabled={Boolean(busy)}
              />
            </div>
            {canRequireConfirmation(user) ? (
              <ConfirmationFields value={confirmation} onChange={setConfirmation} disabled={Boolean(busy)} />
            ) : null}
          </div>
        ) : null}

        {open && addressed ? (
          <AlertAudiencePicker value={audience} onChange={setAudience} disabled={Boolean(busy)} urgent={isUrgent} />
        ) : null}

        {open && category === HOUSE_TAGGED_CATEGORY ? (
          <HousePicker value={houseTags} onChange={setHouseTags} disabled={Boolean(busy)} />
        ) : null}

        {problem ? (
          <p className="field-error" role="alert">
            {problem}
          </p>
        ) : null}

        <div className="composer-actions">
          <ComposerFilePicker files={files} onAdd={addFiles} disabled={Boolean(busy)} />
          <EmojiButton
            field={contentField}
            onInsert={(next) => {
              setContent(next);
              setActive(true);
            }}
            disabled={Boolean(busy)}
          />
          <Button type="submit" className="composer-submit" disabled={blank || Boolean(busy) || !db}>
            {busy ? <InlineSpinner /> : <Send aria-hidden size={16} />}
            {busy ?? (schedule ? 'Schedule' : 'Post')}
          </Button>
        </div>
      </form>
    </Card>
  );
});
