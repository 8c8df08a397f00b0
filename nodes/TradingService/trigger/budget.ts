import type { IPollFunctions } from 'n8n-workflow';

/** Share of n8n's poll time budget spent fetching pages; the rest is left for the last request and the hand-off. */
export const BUDGET_SHARE = 0.5;

/** When this poll stops fetching further pages, or undefined when n8n gives no time budget. */
export function pollDeadline(context: IPollFunctions, startedAt: number): number | undefined {
	// Recent n8n gives each poll a time budget; older hosts have none and read the whole backlog at once.
	const getBudget = (context as Partial<IPollFunctions>).getPollBudgetMs;
	if (typeof getBudget !== 'function') return undefined;
	const budget: unknown = getBudget.call(context);
	if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0) return undefined;
	return startedAt + budget * BUDGET_SHARE;
}
