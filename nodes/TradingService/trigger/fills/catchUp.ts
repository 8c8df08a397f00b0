import type { INode, IPollFunctions } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import { compareTradeIds, type AccountFill } from '../../helpers/trades';
import { ENDPOINTS, type ServiceClient } from '../../transport';
import { baselineState } from '../baseline';
import { nextState } from '../catchUp';
import { END_MARGIN_MS, type PollBounds } from '../settings';
import {
	addToGroups,
	groupsHave,
	type KeyedRecord,
	type ResumePoint,
	type TriggerState,
} from '../state';
import type { FillsSettings } from './settings';
import { FillsWalk } from './walk';

/**
 * Order Filled's first and later polls, on the history path's state (trigger/state.ts): a fill's
 * `time` is kept where a record's `created` is, its trade ID as the id. What differs is the read:
 * the trade list pages by trade ID (FillsWalk), so a catch-up stopped by n8n's poll time budget
 * resumes below the smallest trade ID read (`resume.belowId`) rather than below a time.
 */

/** A fill as the state sees it. */
export const keyOf = (fill: AccountFill): KeyedRecord => ({ id: fill.id, created: fill.time });

/**
 * First activation: remembers the newest page (1,000 fills) of the 30 days, emits nothing. One
 * request: the trade list is newest first, so its first page holds the newest fills.
 */
export async function takeFillsBaseline(
	node: INode,
	client: ServiceClient,
	settings: FillsSettings,
	bounds: PollBounds,
	query: string,
): Promise<TriggerState> {
	const walk = new FillsWalk(
		node,
		{
			symbol: settings.symbol,
			accountId: settings.accountId,
			startTime: bounds.start,
			endTime: bounds.end,
		},
		{ maxPages: 1 },
	);
	await client.requestAllPages(ENDPOINTS.accountTrades, walk);
	return baselineState(
		walk.fills.map(keyOf),
		settings.lateWindowMs,
		bounds.start,
		query,
		LIMITS.accountTradesPageSize,
	);
}

export interface FillsCatchUp {
	state: TriggerState;
	/** Fills not emitted before, in the order read (not sorted yet). */
	fresh: AccountFill[];
}

/** What one poll has read so far: every fill once, and which of them are new. */
class FillsReader {
	readonly read: KeyedRecord[] = [];
	readonly fresh: AccountFill[] = [];
	private readonly handled = new Set<string>();

	constructor(
		private readonly node: INode,
		private readonly client: ServiceClient,
		private readonly settings: FillsSettings,
		readonly deadline: number | undefined,
	) {}

	get pastDeadline(): boolean {
		return this.deadline !== undefined && Date.now() >= this.deadline;
	}

	/**
	 * Reads the fills of `startTime`..`endTime` (below `belowId`, when given), each once. Stopped by
	 * the deadline, returns where the next poll goes on: the same range below the smallest trade ID
	 * read, with the ids of that rest already handled (`known`, and what this poll read), so none is
	 * emitted twice.
	 */
	async readRange(
		startTime: number,
		endTime: number,
		belowId: string | undefined,
		isNew: (fill: KeyedRecord) => boolean,
		known: Array<Record<string, string[]>>,
	): Promise<ResumePoint | undefined> {
		const walk = new FillsWalk(
			this.node,
			{ symbol: this.settings.symbol, accountId: this.settings.accountId, startTime, endTime },
			{ deadline: this.deadline, belowId },
		);
		await this.client.requestAllPages(ENDPOINTS.accountTrades, walk);
		for (const fill of walk.fills) {
			if (this.handled.has(fill.id)) continue;
			this.handled.add(fill.id);
			const key = keyOf(fill);
			this.read.push(key);
			if (isNew(key)) this.fresh.push(fill);
		}
		if (!walk.stopped || walk.below === undefined) return undefined;
		const below = walk.below;
		const inRest = (created: string, id: string) =>
			Number(created) >= startTime && Number(created) <= endTime && compareTradeIds(id, below) < 0;
		const handled: Record<string, string[]> = {};
		for (const groups of known) {
			for (const [created, ids] of Object.entries(groups)) {
				for (const id of ids) if (inRest(created, id)) addToGroups(handled, created, id);
			}
		}
		for (const key of this.read) {
			if (inRest(key.created, key.id)) addToGroups(handled, key.created, key.id);
		}
		return { from: startTime, to: endTime, belowId: below, known: handled };
	}
}

/** Reads what is new since the stored state, within `deadline` when n8n gives one. */
export async function catchUpFills(
	context: IPollFunctions,
	client: ServiceClient,
	settings: FillsSettings,
	state: TriggerState,
	bounds: PollBounds,
	deadline: number | undefined,
): Promise<FillsCatchUp> {
	const reader = new FillsReader(context.getNode(), client, settings, deadline);
	let resumed = false;
	let resume: ResumePoint | undefined;
	const pending = state.resume;
	if (pending !== undefined) {
		// Step 1: the rest of a catch-up an earlier poll had to leave unfinished.
		const startTime = Math.max(pending.from, bounds.start);
		if (pending.to < startTime) {
			context.logger.warn(
				'Trading Service Trigger: part of an unfinished catch-up of fills is older than the 30 days the exchange keeps fills; it was dropped',
			);
		} else {
			resumed = true;
			resume = await reader.readRange(
				startTime,
				pending.to,
				pending.belowId,
				(fill) =>
					!groupsHave(pending.known, fill.created, fill.id) &&
					!groupsHave(state.seen, fill.created, fill.id),
				[pending.known, state.seen],
			);
		}
	}
	if (resume === undefined && !(resumed && reader.pastDeadline)) {
		// Step 2: from the floor (the watermark minus the late records window) to now. Every fill read
		// at or above the floor is in `seen`, so a fill listed late inside the window is new.
		const startTime = Math.max(state.floor, bounds.start);
		const endTime = Math.max(bounds.end, (state.watermark ?? 0) + END_MARGIN_MS);
		resume = await reader.readRange(
			startTime,
			endTime,
			undefined,
			(fill) => !groupsHave(state.seen, fill.created, fill.id),
			[state.seen],
		);
	}
	return {
		state: nextState(settings.lateWindowMs, state, reader.read, resume),
		fresh: reader.fresh,
	};
}
