import type { INode, INodeExecutionData } from 'n8n-workflow';

import type { ServiceClient } from '../transport';
import type { EventSettings, PollBounds } from './settings';
import { sourceOf } from './sources';

/** Pages "Fetch Test Event" reads at most while looking for a record that matches the filters. */
export const MANUAL_MAX_PAGES = 10;

/**
 * "Fetch Test Event": the newest record that passes the filters, read the way a poll reads, at
 * most a few pages deep. Reads state, never writes it.
 */
export async function fetchTestEvent(
	node: INode,
	client: ServiceClient,
	settings: EventSettings,
	bounds: PollBounds,
): Promise<INodeExecutionData[]> {
	const source = sourceOf(node, settings);
	const read = await source.read(
		client,
		{ startTime: bounds.start, endTime: bounds.end },
		{ maxPages: MANUAL_MAX_PAGES, until: (record) => source.matches(record) },
	);
	if (read.found !== undefined) return [{ json: read.found }];
	throw source.noTestEvent(read);
}
