import { LIMITS } from '../../../schema/constants';

/** "A, B, C, D, E and 3 others": up to five names, then how many more (spec section 4). */
export function namesLine(names: readonly string[]): string {
  const shown = names.slice(0, LIMITS.reactionTooltipNames);
  const others = names.length - shown.length;
  if (others === 0) return shown.join(', ');
  return `${shown.join(', ')} and ${others} ${others === 1 ? 'other' : 'others'}`;
}
