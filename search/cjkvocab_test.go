package search

import "testing"

// cjkVocabEnglishTools are tools described in English, each named by a
// concept the bilingual lexicon's Chinese, Japanese and Korean words carry:
// status, failure and rerun, sign-in, coordinates, market words, change
// logs, cloud functions, meals, traffic, products written in Hangul.
var cjkVocabEnglishTools = []Doc{
	{ID: "flight_status", Server: "flights", Tool: "get_flight_status", Description: "Get the current status of a flight by flight number."},
	{ID: "rerun", Server: "ci", Tool: "rerun_workflow", Description: "Rerun a workflow from the failed job."},
	{ID: "authenticate", Server: "accounts", Tool: "authenticate", Description: "Start the OAuth flow that authenticates the user."},
	{ID: "reverse_geocode", Server: "maps", Tool: "reverse_geocode", Description: "Convert coordinates (latitude, longitude) into a street address."},
	{ID: "ticker", Server: "exchange", Tool: "get_ticker", Description: "Get current ticker information for a trading pair."},
	{ID: "changelog", Server: "ui", Tool: "get_component_changelog", Description: "Show the changelog of a UI component across versions."},
	{ID: "deploy_function", Server: "cloud", Tool: "deploy_function", Description: "Deploy a cloud function."},
	{ID: "trading_day", Server: "market", Tool: "is_trading_day", Description: "Tell whether a date is a trading day of the exchange."},
	{ID: "meals", Server: "kitchen", Tool: "recommend_meals", Description: "Recommend meals and a menu for the week."},
	{ID: "traffic", Server: "roads", Tool: "road_traffic", Description: "Live traffic congestion on a road."},
	{ID: "us_history", Server: "market", Tool: "get_us_history", Description: "Historical daily prices of US stocks."},
	{ID: "github_issue", Server: "github", Tool: "create_issue", Description: "Create a new issue in a repository."},
	{ID: "browse_folder", Server: "drive", Tool: "browse_folder", Description: "Browse the files of a folder."},
	{ID: "create_folder", Server: "drive", Tool: "create_folder", Description: "Create a new folder."},
	{ID: "gitlab_issue", Server: "gitlab", Tool: "create_issue", Description: "Create a new issue in a project."},
	{ID: "slack_post", Server: "slack", Tool: "slack_post_message", Description: "Post a new message to a channel."},
	{ID: "discord_send", Server: "discord", Tool: "discord_send", Description: "Send a message to a channel."},
	{ID: "hk_kline", Server: "market", Tool: "get_hk_kline", Description: "Daily candlestick history (kline) of Hong Kong shares."},
	{ID: "fund_nav", Server: "market", Tool: "get_fund_nav", Description: "Net asset value (NAV) of mutual funds."},
	{ID: "industries", Server: "market", Tool: "list_industries", Description: "Industry sectors with their latest moves."},
	{ID: "walking", Server: "maps", Tool: "walking_directions", Description: "Walking directions between two places."},
	{ID: "now", Server: "clock", Tool: "current_time", Description: "Get the current date and time."},
	{ID: "tts", Server: "voice", Tool: "text_to_audio", Description: "Convert text to speech audio."},
	{ID: "card", Server: "boards", Tool: "add_card", Description: "Add a new card to a list."},
	{ID: "image_gen", Server: "art", Tool: "generate_image", Description: "Generate images from a text prompt."},
	{ID: "flow", Server: "diagrams", Tool: "generate_flow_diagram", Description: "Generate a flowchart from steps."},
	{ID: "migrate", Server: "db", Tool: "apply_migration", Description: "Apply a schema migration to the database."},
	{ID: "env_var", Server: "deploy", Tool: "set_env", Description: "Set an environment variable of the service."},
	{ID: "weather", Server: "weather", Tool: "get_forecast", Description: "Get the weather forecast for a city."},
	{ID: "send_email", Server: "mail", Tool: "send_email", Description: "Send an email message to a recipient."},
}

// TestCJKRequestReachesEnglishToolByConcept: a request in Chinese, Japanese
// or Korean whose words are everyday words of the lexicon finds the tool
// described in English for them first.
func TestCJKRequestReachesEnglishToolByConcept(t *testing.T) {
	t.Parallel()
	ix := New(cjkVocabEnglishTools)
	tests := []struct{ lang, query, want string }{
		{"zh", "航班的实时状态", "flight_status"},
		{"ja", "フライトの状態を確認", "flight_status"},
		{"ko", "항공편 실시간 상태", "flight_status"},
		{"zh", "重试失败的构建", "rerun"},
		{"ja", "失敗したビルドを再実行", "rerun"},
		{"ko", "실패한 빌드 재시도", "rerun"},
		{"ja", "OAuthで認証する", "authenticate"},
		{"zh", "登录认证", "authenticate"},
		{"ja", "座標から住所を調べる", "reverse_geocode"},
		{"zh", "经度纬度转成地址", "reverse_geocode"},
		{"ko", "위도 경도로 주소 찾기", "reverse_geocode"},
		{"ko", "이더리움 시세", "ticker"},
		{"ja", "イーサリアムの相場", "ticker"},
		{"ja", "コンポーネントの変更履歴", "changelog"},
		{"zh", "组件的更新日志", "changelog"},
		{"zh", "部署云函数", "deploy_function"},
		{"ko", "클라우드 함수 배포", "deploy_function"},
		{"ja", "明日は取引日？", "trading_day"},
		{"zh", "今天是交易日吗", "trading_day"},
		{"ja", "一週間の献立", "meals"},
		{"zh", "推荐晚餐", "meals"},
		{"ja", "この道路の渋滞", "traffic"},
		{"zh", "道路拥堵情况", "traffic"},
		{"ko", "도로 교통 정체", "traffic"},
		{"ja", "米国株の過去の値動き", "us_history"},
		{"ko", "깃허브 이슈 만들기", "github_issue"},
		{"ja", "フォルダを作る", "create_folder"},
		{"ja", "フォルダを作ってください", "create_folder"},
		{"ko", "슬랙으로 메시지 전송", "slack_post"},
		{"ja", "香港株の日足", "hk_kline"},
		{"ja", "投資信託の基準価額", "fund_nav"},
		{"ja", "業種別のセクター", "industries"},
		{"ja", "駅まで歩いて行く道", "walking"},
		{"ja", "失敗したジョブをやり直す", "rerun"},
		{"ko", "워크플로 재실행", "rerun"},
		{"ja", "今何時", "now"},
		{"ko", "지금 몇 시예요", "now"},
		{"ja", "文章を音声にする", "tts"},
		{"zh", "把文字转成语音", "tts"},
		{"ja", "新しいカードを追加", "card"},
		{"zh", "新建一张卡片", "card"},
		{"ko", "강아지 그림 그려줘", "image_gen"},
		{"ja", "犬のイラストを作って", "image_gen"},
		{"ko", "순서도 그리기", "flow"},
		{"ja", "スキーマの移行を適用", "migrate"},
		{"ko", "마이그레이션 적용", "migrate"},
		{"ja", "環境変数を設定", "env_var"},
		{"ko", "환경 변수 설정", "env_var"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || cjkVocabEnglishTools[hits[0].Doc].ID != tt.want {
			t.Errorf("[%s] Search(%q) = %v, want %s first", tt.lang, tt.query, ids(cjkVocabEnglishTools, hits), tt.want)
		}
	}
}

// cjkVocabForeignTools are tools described only in Chinese or Japanese,
// in the words such descriptions use, under names that say little.
var cjkVocabForeignTools = []Doc{
	{ID: "fund_flow", Server: "stock", Tool: "flow_a", Description: "获取个股资金流历史：主力净流入、超大单净流入。"},
	{ID: "zt_pool", Server: "stock", Tool: "pool_b", Description: "获取涨停股池：涨停、跌停、炸板。"},
	{ID: "dragon", Server: "stock", Tool: "detail_c", Description: "获取龙虎榜上榜个股明细。"},
	{ID: "road", Server: "map", Tool: "road_d", Description: "根据城市和道路名称查询具体道路的实时拥堵评价。"},
	{ID: "invite", Server: "chat", Tool: "link_e", Description: "チャットへの招待リンクを作成します。"},
	{ID: "unread", Server: "chat", Tool: "mark_f", Description: "チャットのメッセージを未読にします。"},
	{ID: "switch", Server: "books", Tool: "company_g", Description: "事業所を設定・切り替え"},
	{ID: "examples", Server: "ui", Tool: "examples_h", Description: "获取 Ant Design 特定组件的代码示例。"},
	{ID: "effort", Server: "devops", Tool: "record_i", Description: "登记实际工时。"},
	{ID: "allergy", Server: "cook", Tool: "plan_j", Description: "根据用户的忌口、过敏原、人数智能推荐菜谱。"},
	{ID: "hosting", Server: "cloud", Tool: "manage_k", Description: "管理静态托管的文件。"},
	{ID: "transit", Server: "map", Tool: "route_l", Description: "地铁公交路径规划。"},
	{ID: "oauth", Server: "books", Tool: "start_m", Description: "OAuth認証を開始、初回のみ必要。"},
	{ID: "my_status", Server: "chat", Tool: "status_n", Description: "自分の未読数、未完了タスク数を取得します。"},
	{ID: "sectors", Server: "stock", Tool: "boards_o", Description: "获取行业板块列表：板块名称、涨跌幅、领涨股。"},
	{ID: "themes", Server: "fund", Tool: "funds_p", Description: "获取主题基金列表，按各阶段收益率排序。"},
	{ID: "voice", Server: "media", Tool: "make_q", Description: "把文本转为语音。"},
}

// TestEnglishRequestReachesCJKToolByConcept: an English request finds the
// tool described in Chinese or Japanese in the words such descriptions
// use (the index reads them with their English words).
func TestEnglishRequestReachesCJKToolByConcept(t *testing.T) {
	t.Parallel()
	ix := New(cjkVocabForeignTools)
	tests := []struct{ query, want string }{
		{"net inflow of main capital into a stock", "fund_flow"},
		{"stocks at limit up", "zt_pool"},
		{"dragon tiger list", "dragon"},
		{"road congestion right now", "road"},
		{"create an invite link for the room", "invite"},
		{"mark the message as unread", "unread"},
		{"switch to another company", "switch"},
		{"code examples of a component", "examples"},
		{"log the effort hours I worked", "effort"},
		{"recipes for someone with allergies", "allergy"},
		{"upload files to static hosting", "hosting"},
		{"subway route planning", "transit"},
		{"authenticate with OAuth", "oauth"},
		{"unread count and pending tasks", "my_status"},
		{"leading gainers by sector", "sectors"},
		{"theme funds ranked by yield", "themes"},
		{"text to speech", "voice"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || cjkVocabForeignTools[hits[0].Doc].ID != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, ids(cjkVocabForeignTools, hits), tt.want)
		}
	}
}
