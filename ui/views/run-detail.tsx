/**
 * @module ui/views/run-detail
 * (Placeholder: built by issue #13.)
 */
import { EmptyState } from "../components/empty-state.js";

/** The run-detail view. */
export default function RunDetail() {
  return <EmptyState title="RunDetail" hint="Coming with issue #13." />;
}
