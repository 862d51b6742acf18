/**
 * @module ui/views/crons
 * (Placeholder: built by issue #13.)
 */
import { EmptyState } from "../components/empty-state.js";

/** The crons view. */
export default function Crons() {
  return <EmptyState title="Crons" hint="Coming with issue #13." />;
}
