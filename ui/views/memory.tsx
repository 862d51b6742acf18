/**
 * @module ui/views/memory
 * (Placeholder: built by issue #13.)
 */
import { EmptyState } from "../components/empty-state.js";

/** The memory view. */
export default function Memory() {
  return <EmptyState title="Memory" hint="Coming with issue #13." />;
}
