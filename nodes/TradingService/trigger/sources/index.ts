import type { IDataObject, INode } from 'n8n-workflow';

import { isHistoryEvent, type EventSettings } from '../settings';
import { fillsSource } from './fills';
import { historySource } from './history';
import type { EventSource } from './source';

/** The source the settings' event is read from. */
export function sourceOf(node: INode, settings: EventSettings): EventSource<IDataObject> {
	const source = isHistoryEvent(settings)
		? historySource(node, settings)
		: fillsSource(node, settings);
	// Each source reads and compares only records it read itself, so its record type can be widened.
	return source as unknown as EventSource<IDataObject>;
}
