import { POST_CATEGORIES, POST_CATEGORY_LABELS, type PostCategory } from '../../../schema/post-rules';
import type { SelectOption } from '../../components/ui/select';

/** The five categories as select options, labels from the schema (docs/behaviour.md, "Posts and categories"). */
export const CATEGORY_OPTIONS: SelectOption<PostCategory>[] = POST_CATEGORIES.map((value) => ({
  value,
  label: POST_CATEGORY_LABELS[value],
}));
