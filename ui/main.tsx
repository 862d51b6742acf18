/**
 * @module ui/main
 * The app's entry: applies the saved theme before the first paint, then renders the app.
 */
import { render } from "solid-js/web";
import { App } from "./app.js";
import { registerAppServiceWorker } from "../browser/register-sw.js";
import { applyTheme, savedTheme } from "./theme.js";
import "./styles/theme.css";
import "./styles/base.css";

applyTheme(savedTheme());
render(() => <App />, document.getElementById("root")!);
void registerAppServiceWorker();
