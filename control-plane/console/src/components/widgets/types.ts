import type { Widget } from '@vantage/shared-protocol';

/** What every widget renderer is given: the widget (type, title, options) and its `data` from the widget-data call. */
export interface WidgetProps { widget: Widget; data: Record<string, unknown> }
