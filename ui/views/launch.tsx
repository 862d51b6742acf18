/**
 * @module ui/views/launch
 * (Placeholder: built by issue #13.)
 */
import { EmptyState } from "../components/empty-state.js";

/** The launch view. */
export default function Launch() {
  return <EmptyState title="Launch" hint="Coming with issue #13." />;
}
