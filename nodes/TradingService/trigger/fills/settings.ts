import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../../constants';
import { locatorValue } from '../../helpers/locator';
import { inputError } from '../../helpers/validation';
import { exactFilterValue } from '../filters';
import {
	END_MARGIN_MS,
	ORDER_FILLED,
	RETENTION_MARGIN_MS,
	readLateWindowMs,
	type PollBounds,
} from '../settings';

/** Order Filled's parameters, checked. Account Type and Direction do not apply (hidden for it). */
export interface FillsSettings {
	/** Filters › Symbol: sent as `symbol`, and matched exactly (case-sensitive) on each fill. */
	symbol?: string;
	lateWindowMs: number;
	/**
	 * The trading account whose fills start the workflow: the API key's own (helpers/accountScope.ts),
	 * set by the poll before anything is read. Not part of the state's key: it is the same account
	 * for a key, and a master key's sub accounts' fills never start the workflow.
	 */
	accountId?: string;
}

/**
 * Reads and checks Order Filled's parameters. A Coin filter is refused, not ignored: a fill has no
 * single coin (it moves the base and the quote coin, and its fee may be in either), so a Coin the
 * user set would otherwise be silently dropped.
 */
export function readFillsSettings(context: IPollFunctions): FillsSettings {
	const node = context.getNode();
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const coin = locatorValue(filters.coin);
	if (coin !== undefined && coin !== null && coin !== '') {
		throw inputError(
			node,
			'Filters › Coin',
			'does not apply to Order Filled: a fill has no single coin',
			'Remove the Coin filter. To get the fills of one trading pair only, set Filters › Symbol instead, e.g. BTCUSDT.',
		);
	}
	return {
		symbol: exactFilterValue(node, 'Symbol', locatorValue(filters.symbol)),
		lateWindowMs: readLateWindowMs(context),
	};
}

/**
 * The bounds of a poll that starts at `now`: the trade list's 30 days (a start older than that by
 * the exchange's clock is refused, -2028) with the clock margin, up to the clock's margin.
 */
export function fillsBounds(now: number): PollBounds {
	return {
		start: now - LIMITS.accountTradesRetentionDays * DAY_MS + RETENTION_MARGIN_MS,
		end: now + END_MARGIN_MS,
	};
}

/**
 * The state's query key: distinct from every flow type's, and per Symbol, as the Symbol is sent to
 * the service: changing Event or Symbol starts over like a first activation.
 */
export function fillsQueryKey(settings: FillsSettings): string {
	return `event=${ORDER_FILLED};symbol=${JSON.stringify(settings.symbol ?? null)}`;
}
