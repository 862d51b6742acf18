/**
 * @module ui/views/runs-list
 * (Placeholder: built by issue #13.)
 */
import { EmptyState } from "../components/empty-state.js";

/** The runs-list view. */
export default function RunsList() {
  return <EmptyState title="RunsList" hint="Coming with issue #13." />;
}
